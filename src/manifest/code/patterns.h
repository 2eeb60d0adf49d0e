#pragma once

// The patterns that leave files of a shipped folder out (code.exclude, .kftrainignore,
// .gitignore, docs/code.md), read as git reads a .gitignore: the last pattern that matches a
// path decides, "!pattern" brings back what an earlier one left out, "**" spans folders.
// Pure: the files are read by load/collect.h.

#include <string>
#include <string_view>
#include <vector>

namespace kftrain::manifest {

// One pattern, parsed.
struct CodeRule {
    std::string base;                // the folder of the ignore file it came from: "" or "a/b/"
    std::vector<std::string> parts;  // the pattern split at '/'; "**" is a part of its own
    bool negated = false;            // "!pattern": brings back what an earlier rule left out
    bool dir_only = false;           // "name/": matches folders only
    bool secret = false;             // one of the defaults that leave secrets out
};

// Read pattern (a line of an ignore file, "!" and "\" as git reads them) as a rule for the
// paths under base ("" or "dir/"). A pattern without '/' (but a trailing one) matches a name at
// any depth; one with a '/' matches the path from base.
CodeRule code_rule(const std::string& pattern, const std::string& base = "");

// Read each of patterns with code_rule.
std::vector<CodeRule> code_rules(const std::vector<std::string>& patterns,
                                 const std::string& base = "");

// Return the last of rules that matches path (a folder when is_dir), nullptr when none does:
// the path is left out when it is found and not negated.
const CodeRule* last_code_match(const std::string& path, bool is_dir,
                                const std::vector<CodeRule>& rules);

// Return whether name matches one part of a pattern: '*' any bytes, '?' one, "[a-z]" and
// "[!a-z]" a set, '\' takes the next byte as it is.
bool code_glob(std::string_view pattern, std::string_view name);

// One line of an ignore file that cannot be used.
struct IgnoreProblem {
    size_t line = 0;  // from 1
    std::string problem;
    std::string text;
};

// The patterns of an ignore file's text, and the lines that cannot be used.
struct IgnoreLines {
    std::vector<std::string> patterns;
    std::vector<IgnoreProblem> problems;
};

// Return why a pattern of code.exclude or of an ignore file cannot be used; "" when it can.
std::string code_pattern_problem(const std::string& pattern);

// Read an ignore file's text: one pattern a line; blank lines and "#" comments skipped;
// blanks at either end dropped but a trailing "\ ".
IgnoreLines parse_ignore_text(const std::string& text);

}  // namespace kftrain::manifest
