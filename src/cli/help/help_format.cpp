#include "cli/help/help_format.h"

#include <sstream>

namespace kftrain::cli::help {

std::string HelpFormatter::make_footer(const CLI::App* app) const {
    if (app->get_parent() == nullptr) {
        return CLI::Formatter::make_footer(app);
    }
    // The global flags are the root's, however deep the verb (tune status, data put).
    const CLI::App* root = app;
    while (root->get_parent() != nullptr) {
        root = root->get_parent();
    }
    std::ostringstream out;
    out << "Global options (before or after the verb):\n";
    for (const CLI::Option* option : root->get_options()) {
        if (option->nonpositional() && option != root->get_help_ptr() &&
            option->get_name() != "--version") {
            out << make_option(option, false);
        }
    }
    out << "\n" << CLI::Formatter::make_footer(app);
    return out.str();
}

}  // namespace kftrain::cli::help
