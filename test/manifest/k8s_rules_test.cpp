#include <catch2/catch.hpp>

#include "manifest/k8s/rules.h"
#include "manifest/validate.h"

using namespace kftrain::manifest;

namespace {

const std::string k_qualified = "must be a qualified name: ";
const std::string k_bad_prefix =
    k_qualified +
    "the prefix before '/' must be a DNS-1123 subdomain: at most 253 lower-case letters, digits, "
    "'-' and '.', starting and ending with a letter or digit";
const std::string k_bad_name_chars =
    k_qualified +
    "the name after any prefix/ must be at most 63 letters, digits, '-', '_' or '.', starting "
    "and ending with a letter or digit";
const std::string k_bad_label_value =
    "must be a label value: at most 63 letters, digits, '-', '_' or '.', starting and ending "
    "with a letter or digit";

// A DNS-1123 subdomain of exactly n characters: labels of 63 joined by dots.
std::string subdomain_of(size_t n) {
    std::string text;
    while (text.size() < n) {
        text += (text.size() % 64 == 63) ? '.' : 'a';
    }
    if (text.back() == '.') {
        text.back() = 'a';
    }
    return text;
}

}  // namespace

TEST_CASE("DNS-1123 subdomains: labels joined by dots, at most 253 characters", "[manifest]") {
    struct Case {
        std::string text;
        bool valid;
    };
    const std::vector<Case> cases = {
        {"a", true},
        {"example.com", true},
        {"0-a.b-1", true},
        {std::string(100, 'a'), true},  // a label may pass 63 inside a subdomain
        {subdomain_of(253), true},
        {subdomain_of(254), false},
        {"", false},
        {"Example.com", false},
        {"-a.com", false},
        {"a-.com", false},
        {"a..com", false},
        {".a", false},
        {"a.", false},
        {"a_b", false},
    };
    for (const auto& c : cases) {
        INFO(c.text);
        CHECK(is_dns1123_subdomain(c.text) == c.valid);
    }
}

TEST_CASE("label keys are qualified names: a DNS-1123 prefix, then a name of 63", "[manifest]") {
    struct Case {
        std::string key;
        std::string problem;
    };
    const std::vector<Case> cases = {
        {"team", ""},
        {"app.kubernetes.io/name", ""},
        {"kubernetes.io/arch", ""},  // reserved prefixes are still valid keys
        {"A_b.C-9", ""},
        {"x", ""},
        {std::string(63, 'n'), ""},
        {std::string(64, 'n'),
         k_qualified + "the name after any prefix/ must be at most 63 characters (it has 64)"},
        {subdomain_of(253) + "/" + std::string(63, 'n'), ""},
        {subdomain_of(254) + "/n", k_bad_prefix},
        {"-bad/key", k_bad_prefix},
        {"Example.com/key", k_bad_prefix},
        {"/key", k_bad_prefix},
        {"a/b/c", k_qualified + "an optional prefix and one '/', then a name"},
        {"example.com/", k_qualified + "it needs a name after any prefix/"},
        {"", k_qualified + "it needs a name after any prefix/"},
        {"-key", k_bad_name_chars},
        {"key-", k_bad_name_chars},
        {"has space", k_bad_name_chars},
        {"ke:y", k_bad_name_chars},
    };
    for (const auto& c : cases) {
        INFO(c.key);
        CHECK(qualified_name_problem(c.key) == c.problem);
    }
}

TEST_CASE("annotation keys are qualified names once lower-cased", "[manifest]") {
    CHECK(annotation_key_problem("Example.COM/Owner").empty());
    CHECK(qualified_name_problem("Example.COM/Owner") == k_bad_prefix);
    CHECK(annotation_key_problem("bad key") == k_bad_name_chars);
}

TEST_CASE("label values: empty or at most 63 of the name characters", "[manifest]") {
    struct Case {
        std::string value;
        bool valid;
    };
    const std::vector<Case> cases = {
        {"", true},
        {"v", true},
        {"v1.2_beta-3", true},
        {std::string(63, 'v'), true},
        {std::string(64, 'v'), false},
        {"-v", false},
        {"v.", false},
        {"a/b", false},
        {"has space", false},
        {"caf\xc3\xa9", false},
    };
    for (const auto& c : cases) {
        INFO(c.value);
        CHECK(label_value_problem(c.value) == (c.valid ? "" : k_bad_label_value));
    }
}

TEST_CASE("annotations may hold 256 KiB of keys and values in all", "[manifest]") {
    std::map<std::string, std::string> annotations = {{"a", std::string(128 * 1024, 'x')},
                                                      {"b", std::string(128 * 1024 - 2, 'x')}};
    CHECK(annotations_size_problem(annotations).empty());
    annotations["b"] += "x";
    CHECK(annotations_size_problem(annotations) ==
          "must total at most 262144 bytes (256 KiB) of keys and values, Kubernetes' limit (they "
          "total 262145 bytes)");
}

TEST_CASE("Secret keys: at most 253 of [-._a-zA-Z0-9], never . or .. or ..x", "[manifest]") {
    const std::string rule =
        "must be a Secret key: at most 253 letters, digits, '-', '_' or '.', and not . or .. or "
        "starting with ..";
    struct Case {
        std::string key;
        bool valid;
    };
    const std::vector<Case> cases = {
        {"token", true},
        {"MLFLOW_TRACKING_PASSWORD", true},
        {".dotfile", true},
        {"a..b", true},
        {std::string(253, 'k'), true},
        {std::string(254, 'k'), false},
        {"", false},
        {".", false},
        {"..", false},
        {"..data", false},
        {"a/b", false},
        {"a b", false},
    };
    for (const auto& c : cases) {
        INFO(c.key);
        CHECK(secret_key_problem(c.key) == (c.valid ? "" : rule));
    }
}

TEST_CASE("names of referenced objects are DNS-1123 subdomains", "[manifest]") {
    CHECK(object_name_problem("mlflow-credentials", "Secret").empty());
    CHECK(object_name_problem("high.priority", "PriorityClass").empty());
    CHECK(object_name_problem("Mlflow_Creds", "Secret") ==
          "must name a Secret: a DNS-1123 subdomain: at most 253 lower-case letters, digits, '-' "
          "and '.', starting and ending with a letter or digit");
    CHECK_FALSE(object_name_problem(subdomain_of(254), "PriorityClass").empty());
}

TEST_CASE("mount paths are absolute without a .. element", "[manifest]") {
    struct Case {
        std::string path;
        std::string problem;
    };
    const std::vector<Case> cases = {
        {"/data", ""},
        {"/", ""},
        {"/data/..hidden", ""},
        {"/a..b/c", ""},
        {"", "must be an absolute path"},
        {"data", "must be an absolute path"},
        {"../data", "must be an absolute path"},
        {"/data/../etc", "must not contain a '..' path element"},
        {"/..", "must not contain a '..' path element"},
        {"/data/..", "must not contain a '..' path element"},
    };
    for (const auto& c : cases) {
        INFO(c.path);
        CHECK(mount_path_problem(c.path) == c.problem);
    }
}

TEST_CASE("tolerations follow the core/v1 rules for key, operator, value and effect",
          "[manifest]") {
    struct Case {
        const char* what;
        Toleration toleration;
        std::string field;  // "" when valid
        std::string rule;
    };
    const std::string empty_key_rule =
        "must be Exists when key is empty (an empty key with Exists tolerates every taint)";
    const std::vector<Case> cases = {
        {"key and value", {"dedicated", "Equal", "gpu", "NoSchedule", {}}, "", ""},
        {"operator defaults to Equal", {"dedicated", "", "gpu", "", {}}, "", ""},
        {"Exists without a value", {"nvidia.com/gpu", "Exists", "", "NoSchedule", {}}, "", ""},
        {"empty key with Exists", {"", "Exists", "", "", {}}, "", ""},
        {"NoExecute with seconds",
         {"node.kubernetes.io/unreachable", "Exists", "", "NoExecute", 300},
         "",
         ""},
        {"Equal with an empty value", {"dedicated", "Equal", "", "NoSchedule", {}}, "", ""},
        {"63-character value", {"k", "Equal", std::string(63, 'v'), "", {}}, "", ""},
        {"bad key", {"bad key", "Exists", "", "", {}}, "key", k_bad_name_chars},
        {"empty key with Equal", {"", "Equal", "x", "", {}}, "operator", empty_key_rule},
        {"empty key, default operator", {"", "", "", "", {}}, "operator", empty_key_rule},
        {"seconds without NoExecute",
         {"k", "Exists", "", "NoSchedule", 60},
         "effect",
         "must be NoExecute when tolerationSeconds is set"},
        {"seconds without an effect",
         {"k", "Exists", "", "", 60},
         "effect",
         "must be NoExecute when tolerationSeconds is set"},
        {"unknown operator", {"k", "In", "v", "", {}}, "operator", "must be Equal or Exists"},
        {"Exists with a value",
         {"k", "Exists", "v", "", {}},
         "value",
         "must be empty when operator is Exists"},
        {"64-character value",
         {"k", "Equal", std::string(64, 'v'), "", {}},
         "value",
         k_bad_label_value},
        {"value with a slash", {"k", "", "a/b", "", {}}, "value", k_bad_label_value},
        {"unknown effect",
         {"k", "Exists", "", "NoScheduleNoAdmit", {}},
         "effect",
         "must be NoSchedule, PreferNoSchedule or NoExecute (or unset: every effect)"},
    };
    for (const auto& c : cases) {
        INFO(c.what);
        auto problem = toleration_problem(c.toleration);
        CHECK(problem.has_value() == !c.field.empty());
        if (problem) {
            CHECK(problem->field == c.field);
            CHECK(problem->rule == c.rule);
        }
    }
}

TEST_CASE("image references may not start or end with whitespace", "[manifest]") {
    CHECK(image_problem("registry.example.com/team/trainer:1.2").empty());
    CHECK(image_problem(" trainer:1") == "must not have leading or trailing whitespace");
    CHECK(image_problem("trainer:1\t") == "must not have leading or trailing whitespace");
}
