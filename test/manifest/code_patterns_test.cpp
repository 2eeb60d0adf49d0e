// The patterns that leave files of a shipped folder out, read as git reads a .gitignore: "**",
// "!" and the last match deciding; the defaults that leave secrets out; the names a ConfigMap
// volume cannot hold and the keys of those it can.
#include <catch2/catch.hpp>
#include <set>

#include "manifest/code.h"
#include "manifest/code/patterns.h"
#include "manifest/k8s/rules.h"

using namespace kftrain;
using manifest::code_excluded;

namespace {

struct MatchCase {
    std::string pattern;
    std::string path;
    bool is_dir;
    bool left_out;
};

}  // namespace

TEST_CASE("code patterns with ** match at any depth as .gitignore reads them", "[manifest][code]") {
    const std::vector<MatchCase> cases = {
        {"**/foo", "foo", false, true},
        {"**/foo", "a/b/foo", false, true},
        {"**/foo", "a/foo/bar", false, false},  // the folder foo matches, not what is in it
        {"**/foo/bar", "x/foo/bar", false, true},
        {"foo/**", "foo/a", false, true},
        {"foo/**", "foo/a/b/c.py", false, true},
        {"foo/**", "foo", true, false},  // everything inside, not foo itself
        {"foo/**", "x/foo/a", false, false},
        {"a/**/b", "a/b", false, true},
        {"a/**/b", "a/x/b", false, true},
        {"a/**/b", "a/x/y/z/b", false, true},
        {"a/**/b", "c/a/x/b", false, false},
        {"/a/**/*.ckpt", "a/run/1.ckpt", false, true},
        {"data/", "x/data", true, true},
        {"data/", "x/data", false, false},
        {"docs/*.md", "docs/sub/a.md", false, false},  // '*' never spans a '/'
        {"a**b", "axxb", false, true},                 // "**" inside a part is a '*'
        {"*.py[co]", "m.pyo", false, true},
        {"[!a]*", "abc", false, false},
        {"\\!important", "!important", false, true},
        {"\\#notes", "#notes", false, true},
        {"trailing\\ ", "trailing ", false, true},
        {"**", "any/path", false, true},
    };
    for (const auto& c : cases) {
        CAPTURE(c.pattern, c.path, c.is_dir);
        CHECK(code_excluded(c.path, c.is_dir, {c.pattern}) == c.left_out);
    }
}

TEST_CASE("the last code pattern that matches decides, and '!' brings a file back",
          "[manifest][code]") {
    CHECK_FALSE(code_excluded("keep.log", false, {"*.log", "!keep.log"}));
    CHECK(code_excluded("other.log", false, {"*.log", "!keep.log"}));
    CHECK(code_excluded("keep.log", false, {"*.log", "!keep.log", "keep.*"}));  // last wins
    CHECK_FALSE(code_excluded("out/keep", false, {"out/**", "!out/keep"}));
    // A folder left out is never read: what is in it cannot come back. The walk stops at the
    // folder, whose own rule is what decides.
    CHECK(code_excluded("build", true, {"build/", "!build/keep.txt"}));
    const auto rules = manifest::code_rules({"*.tmp", "!/sub/a.tmp"}, "pkg/");
    CHECK(manifest::last_code_match("pkg/x.tmp", false, rules) == &rules[0]);
    CHECK(manifest::last_code_match("pkg/sub/a.tmp", false, rules) == &rules[1]);
    CHECK(manifest::last_code_match("other/x.tmp", false, rules) == nullptr);  // another folder's
}

TEST_CASE("ignore files read blank lines, comments, escapes and bad lines as git does",
          "[manifest][code]") {
    const auto lines =
        manifest::parse_ignore_text("# a comment\n\n  data/  \r\n!keep.py\n\\#hash\nbad\x01\n");
    CHECK(lines.patterns == std::vector<std::string>{"data/", "!keep.py", "\\#hash"});
    REQUIRE(lines.problems.size() == 1);
    CHECK(lines.problems[0].line == 6);
    CHECK(lines.problems[0].problem == "must not hold control characters");
    CHECK(manifest::code_pattern_problem(std::string(1025, 'a')) ==
          "is longer than 1024 characters");
}

TEST_CASE("what may hold secrets is left out by default and marked secret", "[manifest][code]") {
    const auto rules = manifest::default_code_rules();
    for (const auto& [path, is_dir] :
         std::vector<std::pair<std::string, bool>>{{".env", false},
                                                   {"sub/.env.local", false},
                                                   {".ssh", true},
                                                   {"certs/server.pem", false},
                                                   {"tls.key", false},
                                                   {".netrc", false},
                                                   {".git-credentials", false},
                                                   {"id_rsa", false},
                                                   {"keys/id_ed25519.pub", false},
                                                   {".aws", true},
                                                   {".kube", true},
                                                   {"client.p12", false}}) {
        CAPTURE(path);
        const manifest::CodeRule* rule = manifest::last_code_match(path, is_dir, rules);
        REQUIRE(rule != nullptr);
        CHECK(rule->secret);
        CHECK_FALSE(rule->negated);
    }
    CHECK(manifest::last_code_match("environment.py", false, rules) == nullptr);
    CHECK(manifest::last_code_match("keys.py", false, rules) == nullptr);
    CHECK_FALSE(manifest::last_code_match(".git", true, rules)->secret);  // kept defaults stay
}

TEST_CASE("names starting with .. are reserved, and every other path has a key of its own",
          "[manifest][code]") {
    for (const std::string path : {"..data", "..foo", "...", "pkg/..data", "a/.../b"}) {
        CAPTURE(path);
        CHECK_FALSE(manifest::code_reserved_problem(path).empty());
        CHECK(manifest::code_path_problem(path) == "has a part starting with \"..\"");
    }
    // What is left: every key a ConfigMap accepts, no two paths on one key.
    std::set<std::string> keys;
    const std::vector<std::string> paths = {
        ".data", ".",   "a..b",  "a/..",      "x.",      ".hidden/..x", "a/b", "a_2fb",
        "a_b",   "a-b", "a.b",   "a b",       "ä",       "a/.b",        "-",   "_",
        "__",    "_5f", "a/b/c", "a_2fb_2fc", "a/b_2fc", "..",          ".a"};
    size_t valid = 0;
    for (const auto& path : paths) {
        CAPTURE(path);
        if (!manifest::code_path_problem(path).empty()) {
            continue;
        }
        ++valid;
        const std::string key = manifest::code_key(path);
        CHECK(manifest::secret_key_problem(key).empty());
        CHECK(keys.insert(key).second);
    }
    CHECK(valid == paths.size() - 4);  // "..", ".hidden/..x", "a/.." and "." are not files
}
