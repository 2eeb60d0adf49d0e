#include "manifest/code/patterns.h"

#include <cstdint>

#include "util/text.h"

namespace kftrain::manifest {
namespace {

// The longest pattern read: a path a volume holds is shorter.
constexpr size_t k_max_pattern = 1024;

// Match the set at pattern[at] ('[' there) against c; set next past its ']'. A '[' with no
// closing ']' is no set: false, with next at at.
bool set_matches(std::string_view pattern, size_t at, unsigned char c, size_t& next, bool& found) {
    size_t i = at + 1;
    bool negate = false;
    if (i < pattern.size() && (pattern[i] == '!' || pattern[i] == '^')) {
        negate = true;
        ++i;
    }
    bool matched = false;
    bool first = true;
    while (i < pattern.size() && (first || pattern[i] != ']')) {
        first = false;
        if (pattern[i] == '\\' && i + 1 < pattern.size()) {
            ++i;
        }
        auto low = static_cast<unsigned char>(pattern[i]);
        auto high = low;
        if (i + 2 < pattern.size() && pattern[i + 1] == '-' && pattern[i + 2] != ']') {
            i += 2;
            if (pattern[i] == '\\' && i + 1 < pattern.size()) {
                ++i;
            }
            high = static_cast<unsigned char>(pattern[i]);
        }
        matched = matched || (low <= c && c <= high);
        ++i;
    }
    found = i < pattern.size();
    next = found ? i + 1 : at;
    return found && matched != negate;
}

// Match one byte of name against the pattern's element at pi ('*' excepted); set next past it.
bool one_matches(std::string_view pattern, size_t pi, unsigned char c, size_t& next) {
    const char p = pattern[pi];
    if (p == '?') {
        next = pi + 1;
        return true;
    }
    if (p == '[') {
        bool found = false;
        const bool matched = set_matches(pattern, pi, c, next, found);
        if (found) {
            return matched;
        }
    }
    if (p == '\\' && pi + 1 < pattern.size()) {
        next = pi + 2;
        return static_cast<unsigned char>(pattern[pi + 1]) == c;
    }
    next = pi + 1;
    return static_cast<unsigned char>(p) == c;
}

// Return whether parts[i...] match segments[j...]; memo holds 0 unknown, 1 no, 2 yes.
bool parts_match(const std::vector<std::string>& parts, const std::vector<std::string>& segments,
                 size_t i, size_t j, std::vector<uint8_t>& memo) {
    uint8_t& known = memo[i * (segments.size() + 1) + j];
    if (known != 0) {
        return known == 2;
    }
    bool matched = false;
    if (i == parts.size()) {
        matched = j == segments.size();
    } else if (parts[i] == "**") {
        if (i + 1 == parts.size() && i > 0) {
            matched = j < segments.size();  // "dir/**": everything inside, not dir itself
        } else {
            for (size_t k = j; k <= segments.size() && !matched; ++k) {
                matched = parts_match(parts, segments, i + 1, k, memo);
            }
        }
    } else if (j < segments.size()) {
        matched =
            code_glob(parts[i], segments[j]) && parts_match(parts, segments, i + 1, j + 1, memo);
    }
    known = matched ? 2 : 1;
    return matched;
}

// Split text at every '/', keeping empty parts.
std::vector<std::string> split_slashes(const std::string& text) {
    std::vector<std::string> parts(1);
    for (char c : text) {
        if (c == '/') {
            parts.emplace_back();
        } else {
            parts.back() += c;
        }
    }
    return parts;
}

// Drop the blanks at the end of line, but one escaped with '\'.
std::string trim_end(std::string line) {
    while (!line.empty() && (line.back() == ' ' || line.back() == '\t' || line.back() == '\r')) {
        if (line.size() >= 2 && line[line.size() - 2] == '\\') {
            break;
        }
        line.pop_back();
    }
    return line;
}

}  // namespace

bool code_glob(std::string_view pattern, std::string_view name) {
    size_t pi = 0;
    size_t si = 0;
    size_t star = std::string_view::npos;  // the pattern after the last '*' met
    size_t star_name = 0;                  // where in name that '*' took up matching
    while (si < name.size()) {
        if (pi < pattern.size() && pattern[pi] == '*') {
            while (pi < pattern.size() && pattern[pi] == '*') {
                ++pi;
            }
            star = pi;
            star_name = si;
            continue;
        }
        size_t next = pi;
        if (pi < pattern.size() &&
            one_matches(pattern, pi, static_cast<unsigned char>(name[si]), next)) {
            pi = next;
            ++si;
            continue;
        }
        if (star == std::string_view::npos) {
            return false;
        }
        pi = star;
        si = ++star_name;
    }
    while (pi < pattern.size() && pattern[pi] == '*') {
        ++pi;
    }
    return pi == pattern.size();
}

CodeRule code_rule(const std::string& pattern, const std::string& base) {
    CodeRule rule;
    rule.base = base;
    std::string text = pattern;
    if (!text.empty() && text.front() == '!') {
        rule.negated = true;
        text.erase(0, 1);
    } else if (text.size() >= 2 && text[0] == '\\' && (text[1] == '!' || text[1] == '#')) {
        text.erase(0, 1);
    }
    if (text.size() > 1 && text.back() == '/') {
        rule.dir_only = true;
        text.pop_back();
    }
    const bool anchored = text.find('/') != std::string::npos;
    if (!text.empty() && text.front() == '/') {
        text.erase(0, 1);
    }
    rule.parts = split_slashes(text);
    if (!anchored) {
        rule.parts.insert(rule.parts.begin(), "**");
    }
    return rule;
}

std::vector<CodeRule> code_rules(const std::vector<std::string>& patterns,
                                 const std::string& base) {
    std::vector<CodeRule> rules;
    rules.reserve(patterns.size());
    for (const auto& pattern : patterns) {
        rules.push_back(code_rule(pattern, base));
    }
    return rules;
}

const CodeRule* last_code_match(const std::string& path, bool is_dir,
                                const std::vector<CodeRule>& rules) {
    for (auto rule = rules.rbegin(); rule != rules.rend(); ++rule) {
        if ((rule->dir_only && !is_dir) || path.size() <= rule->base.size() ||
            path.compare(0, rule->base.size(), rule->base) != 0) {
            continue;
        }
        const auto segments = split_slashes(path.substr(rule->base.size()));
        std::vector<uint8_t> memo((rule->parts.size() + 1) * (segments.size() + 1), 0);
        if (parts_match(rule->parts, segments, 0, 0, memo)) {
            return &*rule;
        }
    }
    return nullptr;
}

std::string code_pattern_problem(const std::string& pattern) {
    const std::string named =
        !pattern.empty() && pattern.front() == '!' ? pattern.substr(1) : pattern;
    if (named.empty() || named == "/") {
        return "must name files or folders";
    }
    if (util::has_controls(pattern)) {
        return "must not hold control characters";
    }
    if (pattern.size() > k_max_pattern) {
        return "is longer than 1024 characters";
    }
    return "";
}

IgnoreLines parse_ignore_text(const std::string& text) {
    IgnoreLines out;
    const auto lines = util::split_lines(text);
    for (size_t i = 0; i < lines.size(); ++i) {
        std::string line = lines[i];
        const size_t start = line.find_first_not_of(" \t");
        line = trim_end(start == std::string::npos ? "" : line.substr(start));
        if (line.empty() || line.front() == '#') {
            continue;
        }
        if (std::string problem = code_pattern_problem(line); !problem.empty()) {
            out.problems.push_back({i + 1, problem, line});
            continue;
        }
        out.patterns.push_back(line);
    }
    return out;
}

}  // namespace kftrain::manifest
