#include "cli/view/help_format.h"

#include <sstream>

namespace kftrain::cli::view {

std::string HelpFormatter::make_footer(const CLI::App* app) const {
    const CLI::App* parent = app->get_parent();
    if (parent == nullptr) {
        return CLI::Formatter::make_footer(app);
    }
    std::ostringstream out;
    out << "Global options (before or after the verb):\n";
    for (const CLI::Option* option : parent->get_options()) {
        if (option->nonpositional() && option != parent->get_help_ptr() &&
            option->get_name() != "--version") {
            out << make_option(option, false);
        }
    }
    out << "\n" << CLI::Formatter::make_footer(app);
    return out.str();
}

}  // namespace kftrain::cli::view
