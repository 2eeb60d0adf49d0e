#include "cli/help/man_page.h"

#include <cctype>
#include <sstream>
#include <vector>

#include "util/text.h"

namespace kftrain::cli::help {
namespace {

constexpr const char* k_examples_label = "Examples:";
constexpr const char* k_exit_codes_label = "Exit codes:";

bool starts_with(const std::string& text, const std::string& prefix) {
    return text.compare(0, prefix.size(), prefix) == 0;
}

// Return the paragraphs of a footer: runs of lines between blank lines.
std::vector<std::string> paragraphs(const std::string& footer) {
    std::vector<std::string> found;
    std::string current;
    for (const std::string& line : util::split_lines(footer)) {
        if (util::trim(line).empty()) {
            if (!current.empty()) {
                found.push_back(current);
            }
            current.clear();
        } else {
            current += current.empty() ? line : "\n" + line;
        }
    }
    if (!current.empty()) {
        found.push_back(current);
    }
    return found;
}

// Return the lines of text joined into one line by single spaces.
std::string joined(const std::string& text) {
    std::string one;
    for (const std::string& line : util::split_lines(text)) {
        const std::string part = util::trim(line);
        if (!part.empty()) {
            one += one.empty() ? part : " " + part;
        }
    }
    return one;
}

// Write text as a filled paragraph.
void write_text(std::ostream& out, const std::string& text) {
    out << ".PP\n" << roff_escape(joined(text)) << "\n";
}

// Write the lines of an "Examples:" paragraph: each "# comment" as a sentence, the command
// lines under it unfilled and indented.
void write_examples(std::ostream& out, const std::string& paragraph) {
    bool in_commands = false;
    for (const std::string& raw : util::split_lines(paragraph.substr(paragraph.find('\n') + 1))) {
        const std::string line = util::trim(raw);
        if (line.empty() || starts_with(line, k_examples_label)) {
            continue;
        }
        const bool comment = line[0] == '#';
        if (comment && in_commands) {
            out << ".fi\n.RE\n";
            in_commands = false;
        }
        if (comment) {
            out << ".PP\n" << roff_escape(util::trim(line.substr(1))) << "\n";
            continue;
        }
        if (!in_commands) {
            out << ".RS 4\n.nf\n";
            in_commands = true;
        }
        out << "\\fB" << roff_escape(line) << "\\fR\n";
    }
    if (in_commands) {
        out << ".fi\n.RE\n";
    }
}

// Write an "Exit codes: 0 ok, 1 job failed, ..." paragraph as a list of codes; a paragraph
// whose items are not "CODE meaning" is written as text.
void write_exit_codes(std::ostream& out, const std::string& paragraph) {
    std::string items =
        util::trim(joined(paragraph).substr(std::string(k_exit_codes_label).size()));
    if (!items.empty() && items.back() == '.') {
        items.pop_back();
    }
    std::vector<std::pair<std::string, std::string>> codes;
    for (const std::string& raw : util::split(items, ',')) {
        const std::string item = util::trim(raw);
        size_t digits = 0;
        while (digits < item.size() && std::isdigit(static_cast<unsigned char>(item[digits]))) {
            ++digits;
        }
        if (digits == 0 || digits == item.size() || item[digits] != ' ') {
            write_text(out, paragraph);
            return;
        }
        codes.emplace_back(item.substr(0, digits), util::trim(item.substr(digits)));
    }
    for (const auto& [code, meaning] : codes) {
        out << ".TP\n.B " << code << "\n" << roff_escape(meaning) << "\n";
    }
}

// Write the paragraphs of a footer: examples, exit codes (under a label when not a
// section of their own) and text.
void write_footer(std::ostream& out, const std::string& footer) {
    for (const std::string& paragraph : paragraphs(footer)) {
        if (starts_with(paragraph, k_examples_label)) {
            out << ".PP\n.B Examples:\n";
            write_examples(out, paragraph);
        } else if (starts_with(paragraph, k_exit_codes_label)) {
            out << ".PP\n.B Exit status:\n";
            write_exit_codes(out, paragraph);
        } else {
            write_text(out, paragraph);
        }
    }
}

// Write one option or argument as a tagged paragraph: its names in bold, its value in
// italics, its help below.
void write_option(std::ostream& out, const CLI::Option* option) {
    out << ".TP\n";
    if (option->get_positional()) {
        out << "\\fB" << roff_escape(option->get_name(true, false)) << "\\fR";
    } else {
        const std::vector<std::string> names = util::split(option->get_name(false, true), ',');
        for (size_t i = 0; i < names.size(); ++i) {
            out << (i == 0 ? "" : ", ") << "\\fB" << roff_escape(names[i]) << "\\fR";
        }
    }
    const std::string value = util::trim(CLI::Formatter().make_option_opts(option));
    if (!value.empty()) {
        out << " \\fI" << roff_escape(value) << "\\fR";
    }
    out << "\n" << roff_escape(joined(option->get_description())) << "\n";
}

bool visible(const CLI::Option* option) {
    return !option->get_group().empty();
}

std::vector<const CLI::App*> visible_verbs(const CLI::App& app) {
    return app.get_subcommands([](const CLI::App* sub) {
        return !sub->get_name().empty() && !sub->get_group().empty() && !sub->get_disabled();
    });
}

// Write a verb and, after it, its subverbs: usage line as the heading, description,
// arguments, options other than --help, and its footer where it is not its parent's.
void write_verb(std::ostream& out, const CLI::App& verb, const std::string& path,
                const std::string& parent_footer) {
    std::string usage = CLI::Formatter().make_usage(&verb, path);
    usage = util::trim(usage.substr(usage.find(':') + 1));
    out << ".SS\n" << roff_escape(usage) << "\n";
    write_text(out, verb.get_description());
    const std::vector<std::string>& aliases = verb.get_aliases();
    for (size_t i = 0; i < aliases.size(); ++i) {
        out << (i == 0 ? ".PP\nAlso called: " : ", ") << "\\fB" << roff_escape(aliases[i]) << "\\fR"
            << (i + 1 == aliases.size() ? "\n" : "");
    }
    const auto arguments = verb.get_options(
        [](const CLI::Option* option) { return option->get_positional() && visible(option); });
    if (!arguments.empty()) {
        out << ".PP\n.B Arguments:\n";
        for (const CLI::Option* option : arguments) {
            write_option(out, option);
        }
    }
    const CLI::Option* help = verb.get_help_ptr();
    const auto options = verb.get_options([help](const CLI::Option* option) {
        return option->nonpositional() && option != help && visible(option);
    });
    if (!options.empty()) {
        out << ".PP\n.B Options:\n";
        for (const CLI::Option* option : options) {
            write_option(out, option);
        }
    }
    const std::string footer = verb.get_footer();
    if (footer != parent_footer) {
        write_footer(out, footer);
    }
    for (const CLI::App* sub : visible_verbs(verb)) {
        write_verb(out, *sub, path + " " + sub->get_name(), footer);
    }
}

}  // namespace

std::string roff_escape(const std::string& text) {
    std::string escaped;
    bool line_start = true;
    for (const char c : text) {
        if (line_start && (c == '.' || c == '\'')) {
            escaped += "\\&";
        }
        if (c == '\\') {
            escaped += "\\e";
        } else if (c == '-') {
            escaped += "\\-";
        } else {
            escaped += c;
        }
        line_start = c == '\n';
    }
    return escaped;
}

namespace {

// Return the program's one-line summary: the first line of its description, without a
// leading "NAME: " and a final full stop.
std::string summary_of(const std::string& name, const std::vector<std::string>& about) {
    std::string summary = about.empty() ? name : util::trim(about[0]);
    if (starts_with(summary, name + ": ")) {
        summary = summary.substr(name.size() + 2);
    }
    if (!summary.empty() && summary.back() == '.') {
        summary.pop_back();
    }
    return summary;
}

// Write the page's header, NAME and SYNOPSIS sections.
void write_head(std::ostream& out, const std::string& name, const std::string& summary,
                const ManPageInfo& info) {
    std::string upper = name;
    for (char& c : upper) {
        c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    }
    out << ".\\\" Generated from the help of " << name << "'s verbs; do not edit.\n"
        << ".TH " << roff_escape(upper) << " 1 \"\" \"" << roff_escape(name + " " + info.version)
        << "\" \"User Commands\"\n"
        << ".SH NAME\n"
        << roff_escape(name) << " \\- " << roff_escape(summary) << "\n"
        << ".SH SYNOPSIS\n"
        << ".B " << roff_escape(name) << "\n[\\fIOPTIONS\\fR] \\fICOMMAND\\fR [\\fIARGS\\fR]\n";
    if (!info.plugin_name.empty()) {
        out << ".br\n.B " << roff_escape(info.plugin_name)
            << "\n[\\fIOPTIONS\\fR] \\fICOMMAND\\fR [\\fIARGS\\fR]\n";
    }
}

// The footer's paragraphs that get sections of their own; the rest is description.
struct FooterSections {
    std::string examples;
    std::string exit_codes;
};

// Write DESCRIPTION: the description past its first line, the plugin note and the footer's
// plain paragraphs; return the footer's examples and exit codes for their own sections.
FooterSections write_description(std::ostream& out, const CLI::App& app,
                                 const std::vector<std::string>& about, const ManPageInfo& info) {
    out << ".SH DESCRIPTION\n";
    std::string rest;
    for (size_t i = 1; i < about.size(); ++i) {
        rest += about[i] + "\n";
    }
    if (!util::trim(rest).empty()) {
        write_text(out, rest);
    }
    if (!info.plugin_name.empty()) {
        write_text(out, "Run as " + info.plugin_name + " (kubectl's plugin), it takes the same " +
                            "commands and options and names itself so in its help.");
    }
    FooterSections sections;
    for (const std::string& paragraph : paragraphs(app.get_footer())) {
        if (starts_with(paragraph, k_examples_label)) {
            sections.examples = paragraph;
        } else if (starts_with(paragraph, k_exit_codes_label)) {
            sections.exit_codes = paragraph;
        } else {
            write_text(out, paragraph);
        }
    }
    return sections;
}

}  // namespace

std::string man_page(const CLI::App& app, const ManPageInfo& info) {
    const std::string name = app.get_name();
    const std::vector<std::string> about = util::split_lines(app.get_description());
    std::ostringstream out;
    write_head(out, name, summary_of(name, about), info);
    const FooterSections footer = write_description(out, app, about, info);

    out << ".SH OPTIONS\nThese options work before or after the command.\n";
    for (const CLI::Option* option : app.get_options([](const CLI::Option* option) {
             return option->nonpositional() && visible(option);
         })) {
        write_option(out, option);
    }

    out << ".SH COMMANDS\n";
    for (const CLI::App* verb : visible_verbs(app)) {
        write_verb(out, *verb, name + " " + verb->get_name(), app.get_footer());
    }
    if (!footer.examples.empty()) {
        out << ".SH EXAMPLES\n";
        write_examples(out, footer.examples);
    }
    if (!footer.exit_codes.empty()) {
        out << ".SH EXIT STATUS\n";
        write_exit_codes(out, footer.exit_codes);
    }
    if (!info.see_also.empty()) {
        out << ".SH SEE ALSO\n" << roff_escape(info.see_also) << "\n";
    }
    return out.str();
}

}  // namespace kftrain::cli::help
