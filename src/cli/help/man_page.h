#pragma once

#include <CLI/CLI.hpp>
#include <string>

namespace kftrain::cli::help {

// What the man page says about itself beside the command line it documents.
struct ManPageInfo {
    std::string version;      // "0.1.0", in the footer and the title line
    std::string plugin_name;  // "kubectl kftrain": a second synopsis line; empty: none
    std::string see_also;     // "kubectl(1)"; empty: no SEE ALSO section
};

// Return text escaped for roff: backslashes as \e, every '-' as \- (a minus sign, so that
// flags can be searched and pasted), and a '.' or '\'' that starts a line behind \& (which
// roff would read as a request).
std::string roff_escape(const std::string& text);

// Return the man page, section 1, of the command line app: NAME and DESCRIPTION from its
// description, the global options, every visible verb and subverb with its usage line,
// description, arguments, options and examples, the examples of app's footer and its exit
// codes (the footer's "Exit codes: 0 ok, 1 ..." paragraph). Pure: it only reads app.
std::string man_page(const CLI::App& app, const ManPageInfo& info);

}  // namespace kftrain::cli::help
