// Fuzz the code folder's patterns and names (manifest/code/patterns.h, manifest/code.h): the
// input's first text is an ignore file (.kftrainignore, .gitignore), each further one a path
// under the folder (texts separated by NUL bytes).
// Properties: nothing throws or crashes; every pattern read is one code_pattern_problem
// accepts; every path code_path_problem accepts has a key a ConfigMap accepts, and no two
// such paths share a key; a reserved path is never accepted.

#include <map>
#include <string>
#include <vector>

#include "fuzz_input.h"
#include "manifest/code.h"
#include "manifest/code/patterns.h"
#include "manifest/k8s/rules.h"

namespace {

using namespace kftrain;

constexpr std::size_t k_most = 64;  // patterns and paths matched, each

// Check what a path's key is, and that no other path took it.
void check_key(const std::string& path, std::map<std::string, std::string>& keys) {
    const std::string reserved = manifest::code_reserved_problem(path);
    if (!manifest::code_path_problem(path).empty()) {
        return;
    }
    if (!reserved.empty()) {
        fuzz::fail("code_path_problem accepts a reserved path: " + path);
    }
    const std::string key = manifest::code_key(path);
    if (std::string problem = manifest::secret_key_problem(key); !problem.empty()) {
        fuzz::fail("the key of " + path + " is no ConfigMap key: " + key);
    }
    const auto [taken, added] = keys.emplace(key, path);
    if (!added && taken->second != path) {
        fuzz::fail("two paths share the key " + key + ": " + path + " and " + taken->second);
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
    const std::vector<std::string> texts = fuzz::split_nul(data, size);
    const manifest::IgnoreLines lines = manifest::parse_ignore_text(texts[0]);
    std::vector<std::string> patterns;
    for (const auto& pattern : lines.patterns) {
        if (!manifest::code_pattern_problem(pattern).empty()) {
            fuzz::fail("parse_ignore_text kept a pattern it cannot use: " + pattern);
        }
        if (patterns.size() < k_most) {
            patterns.push_back(pattern);
        }
    }
    std::vector<manifest::CodeRule> rules = manifest::default_code_rules();
    for (const auto& rule : manifest::code_rules(patterns)) {
        rules.push_back(rule);
    }
    for (const auto& rule : manifest::code_rules(patterns, "pkg/")) {
        rules.push_back(rule);
    }
    std::map<std::string, std::string> keys;  // key: the path that has it
    for (std::size_t i = 1; i < texts.size() && i <= k_most; ++i) {
        const std::string& path = texts[i];
        check_key(path, keys);
        for (bool is_dir : {false, true}) {
            (void)manifest::last_code_match(path, is_dir, rules);
            (void)manifest::code_excluded(path, is_dir, patterns);
        }
        for (const auto& pattern : patterns) {
            (void)manifest::code_glob(pattern, path);
        }
    }
    return 0;
}
