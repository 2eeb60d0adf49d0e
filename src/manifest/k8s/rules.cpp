#include "manifest/k8s/rules.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <regex>

namespace kftrain::manifest {
namespace {

constexpr size_t k_max_subdomain = 253;
constexpr const char* k_label_pattern = "[a-z0-9]([-a-z0-9]*[a-z0-9])?";

bool label_chars(const std::string& text, bool first_may_be_digit) {
    static const std::regex k_label(k_label_pattern);
    if (text.empty() || text.size() > k_max_dns_label || !std::regex_match(text, k_label)) {
        return false;
    }
    return first_may_be_digit || std::isalpha(static_cast<unsigned char>(text[0])) != 0;
}

constexpr std::size_t k_max_name_part = 63;
constexpr std::size_t k_max_secret_key = 253;

const char* const k_name_chars =
    "letters, digits, '-', '_' or '.', starting and ending with a letter or digit";
const char* const k_subdomain_rule =
    "a DNS-1123 subdomain: at most 253 lower-case letters, digits, '-' and '.', starting and "
    "ending with a letter or digit";

// A character scan, not std::regex: its recursion overflows the stack on a key of 100 KB.
bool name_part_chars(const std::string& text) {
    const auto alnum = [](unsigned char c) { return std::isalnum(c) != 0; };
    const auto inner = [&alnum](unsigned char c) {
        return alnum(c) || c == '-' || c == '_' || c == '.';
    };
    return !text.empty() && alnum(text.front()) && alnum(text.back()) &&
           std::all_of(text.begin(), text.end(), inner);
}

bool one_of(const std::string& text, std::initializer_list<const char*> allowed) {
    return std::any_of(allowed.begin(), allowed.end(),
                       [&text](const char* a) { return text == a; });
}

std::optional<FieldProblem> operator_problem(const Toleration& t) {
    if (!one_of(t.op, {"", "Equal", "Exists"})) {
        return FieldProblem{"operator", t.op, "must be Equal or Exists"};
    }
    if (t.op == "Exists") {
        if (!t.value.empty()) {
            return FieldProblem{"value", t.value, "must be empty when operator is Exists"};
        }
        return std::nullopt;
    }
    if (std::string rule = label_value_problem(t.value); !rule.empty()) {
        return FieldProblem{"value", t.value, rule};
    }
    return std::nullopt;
}

}  // namespace

bool is_dns1035_label(const std::string& text) {
    return label_chars(text, false);
}

bool is_dns1123_label(const std::string& text) {
    return label_chars(text, true);
}

bool is_dns1123_subdomain(const std::string& text) {
    static const std::regex k_subdomain(fmt::format("{0}(\\.{0})*", k_label_pattern));
    return !text.empty() && text.size() <= k_max_subdomain && std::regex_match(text, k_subdomain);
}

std::string qualified_name_problem(const std::string& text) {
    std::string name = text;
    size_t slash = text.find('/');
    if (slash != std::string::npos) {
        if (text.find('/', slash + 1) != std::string::npos) {
            return "must be a qualified name: an optional prefix and one '/', then a name";
        }
        std::string prefix = text.substr(0, slash);
        if (!is_dns1123_subdomain(prefix)) {
            return fmt::format("must be a qualified name: the prefix before '/' must be {}",
                               k_subdomain_rule);
        }
        name = text.substr(slash + 1);
    }
    if (name.empty()) {
        return "must be a qualified name: it needs a name after any prefix/";
    }
    if (name.size() > k_max_name_part) {
        return fmt::format(
            "must be a qualified name: the name after any prefix/ must be at most 63 characters "
            "(it has {})",
            name.size());
    }
    if (!name_part_chars(name)) {
        return fmt::format(
            "must be a qualified name: the name after any prefix/ must be at most 63 {}",
            k_name_chars);
    }
    return "";
}

std::string annotation_key_problem(const std::string& text) {
    std::string lower = text;
    std::transform(lower.begin(), lower.end(), lower.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return qualified_name_problem(lower);
}

std::string label_value_problem(const std::string& text) {
    if (text.empty() || (text.size() <= k_max_name_part && name_part_chars(text))) {
        return "";
    }
    return fmt::format("must be a label value: at most 63 {}", k_name_chars);
}

std::string annotations_size_problem(const std::map<std::string, std::string>& annotations) {
    std::size_t total = 0;
    for (const auto& [key, value] : annotations) {
        total += key.size() + value.size();
    }
    if (total <= k_max_annotation_bytes) {
        return "";
    }
    return fmt::format(
        "must total at most 262144 bytes (256 KiB) of keys and values, Kubernetes' limit (they "
        "total {} bytes)",
        total);
}

std::string secret_key_problem(const std::string& text) {
    static const std::regex k_key("[-._a-zA-Z0-9]+");
    const bool good = text.size() <= k_max_secret_key && std::regex_match(text, k_key) &&
                      text != "." && text.rfind("..", 0) != 0;
    if (good) {
        return "";
    }
    return "must be a Secret key: at most 253 letters, digits, '-', '_' or '.', and not . or .. "
           "or starting with ..";
}

std::string object_name_problem(const std::string& text, const std::string& what) {
    if (is_dns1123_subdomain(text)) {
        return "";
    }
    return fmt::format("must name a {}: {}", what, k_subdomain_rule);
}

std::string mount_path_problem(const std::string& path) {
    if (path.empty() || path[0] != '/') {
        return "must be an absolute path";
    }
    size_t start = 0;
    while (start <= path.size()) {
        size_t end = path.find('/', start);
        if (end == std::string::npos) {
            end = path.size();
        }
        if (path.compare(start, end - start, "..") == 0) {
            return "must not contain a '..' path element";
        }
        start = end + 1;
    }
    return "";
}

std::string image_problem(const std::string& image) {
    auto space = [](char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; };
    if (!image.empty() && (space(image.front()) || space(image.back()))) {
        return "must not have leading or trailing whitespace";
    }
    return "";
}

std::optional<FieldProblem> toleration_problem(const Toleration& t) {
    if (!t.key.empty()) {
        if (std::string rule = qualified_name_problem(t.key); !rule.empty()) {
            return FieldProblem{"key", t.key, rule};
        }
    } else if (t.op != "Exists") {
        return FieldProblem{"operator", t.op.empty() ? "Equal (the default)" : t.op,
                            "must be Exists when key is empty (an empty key with Exists "
                            "tolerates every taint)"};
    }
    if (t.seconds && t.effect != "NoExecute") {
        return FieldProblem{"effect", t.effect, "must be NoExecute when tolerationSeconds is set"};
    }
    if (auto problem = operator_problem(t)) {
        return problem;
    }
    if (!one_of(t.effect, {"", "NoSchedule", "PreferNoSchedule", "NoExecute"})) {
        return FieldProblem{"effect", t.effect,
                            "must be NoSchedule, PreferNoSchedule or NoExecute (or unset: every "
                            "effect)"};
    }
    return std::nullopt;
}

}  // namespace kftrain::manifest
