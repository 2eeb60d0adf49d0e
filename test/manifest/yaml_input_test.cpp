#include <catch2/catch.hpp>
#include <tuple>
#include <vector>

#include "manifest/load.h"
#include "manifest/yaml/input.h"
#include "support/cli_runner.h"
#include "support/files.h"
#include "support/paths.h"

using kftrain::manifest::parse_yaml;

namespace {

// An alias bomb: each level a list of ten aliases of the level before.
std::string alias_bomb(int levels) {
    std::string text = "l0: &l0 [x, x, x, x, x, x, x, x, x, x]\n";
    for (int i = 1; i <= levels; ++i) {
        std::string prev = "*l" + std::to_string(i - 1);
        text += "l" + std::to_string(i) + ": &l" + std::to_string(i) + " [";
        for (int j = 0; j < 10; ++j) {
            text += (j > 0 ? ", " : "") + prev;
        }
        text += "]\n";
    }
    return text;
}

}  // namespace

TEST_CASE("hostile YAML is refused with the input's name and line, never walked", "[manifest]") {
    struct Case {
        const char* what;
        std::string text;
        std::string error;
    };
    const std::vector<Case> cases = {
        {"a recursive alias", "name: a\nlabels: &a [*a]\n",
         "job.yaml:2: nested deeper than 64 levels (a recursive alias?)"},
        {"a complex key", "name: a\n? [a, b]\n: 1\n",
         "job.yaml:2: a key must be a plain string (got a list)"},
        {"an alias bomb under an unknown key", "name: a\nzzz:\n" + alias_bomb(8),
         "job.yaml: more than 5000 values (an alias bomb?); a job file holds a few hundred"},
        {"a key twice", "name: a\nreplicas: 2\nimage: x\nreplicas: 3\n",
         "job.yaml:4: replicas: duplicate key (first at line 2)"},
        {"a key twice, nested", "name: a\ntrainer:\n  epochs: 1\n  epochs: 2\n",
         "job.yaml:4: epochs: duplicate key (first at line 3)"},
        {"a second document", "name: a\n---\nname: b\n",
         "job.yaml: holds 2 YAML documents; kftrain reads one (remove what follows the first "
         "'---')"},
        {"too big", std::string(kftrain::manifest::k_max_input_bytes + 1, '#'),
         "job.yaml: larger than 1024 KiB; kftrain reads job files, templates and catalogs of a "
         "few KiB"},
    };
    for (const auto& c : cases) {
        INFO(c.what);
        auto parsed = parse_yaml(c.text, "job.yaml");
        REQUIRE_FALSE(parsed);
        CHECK(parsed.error() == c.error);
    }
}

TEST_CASE("a ',' where a document starts is refused, not read forever", "[manifest]") {
    // yaml-cpp 0.7 reports empty documents without end after such a ',' (found by fuzzing:
    // fuzz/regressions/fuzz_job_file/).
    for (std::string text : {",", "--- ,", "name: a\n---\n,", "  a: 1\n ,"}) {
        INFO(text);
        auto parsed = parse_yaml(text, "job.yaml");
        REQUIRE_FALSE(parsed);
        CHECK(parsed.error() ==
              "job.yaml: invalid YAML: more than 64 documents (a ',' where a document or a key "
              "should start?); kftrain reads one");
    }
    std::string dir = kftrain::test::make_temp_dir();
    kftrain::test::write_file(dir + "/comma.yaml", "name: a\n---\n,\n");
    auto file = kftrain::test::run_kftrain({"render", "-f", dir + "/comma.yaml"});
    CHECK(file.code == 2);
    CHECK(file.out.empty());
    auto set = kftrain::test::run_kftrain(
        {"render", "-f", std::string(kftrain::test::source_dir()) + "/examples/mnist-ddp.yaml",
         "--set", "env=,"});
    CHECK(set.code == 2);
    CHECK(set.out.empty());
}

TEST_CASE("a trailing '---' and aliases within the limits are fine", "[manifest]") {
    auto parsed = parse_yaml("name: a\nbase: &b {x: 1}\nother: *b\n---\n", "job.yaml");
    REQUIRE(parsed);
    CHECK((*parsed)["other"]["x"].as<int>() == 1);
    CHECK(parse_yaml("", "job.yaml")->IsNull());
}

TEST_CASE("a job file that is a directory, endless or binary gets exit 2 and a clear message",
          "[manifest][cli]") {
    std::string dir = kftrain::test::make_temp_dir();
    auto directory = kftrain::test::run_kftrain({"render", "-f", dir});
    CHECK(directory.code == 2);
    CHECK(directory.err == "kftrain: error: " + dir + ": is a directory, not a file\n");

    auto endless = kftrain::test::run_kftrain({"render", "-f", "/dev/zero"});
    CHECK(endless.code == 2);
    CHECK(endless.err ==
          "kftrain: error: /dev/zero: larger than 1024 KiB; kftrain reads job files, templates "
          "and catalogs of a few KiB\n");

    auto tmpl = kftrain::test::run_kftrain(
        {"render", "-f", std::string(kftrain::test::source_dir()) + "/examples/mnist-ddp.yaml",
         "--template", "/dev/zero"});
    CHECK(tmpl.code == 2);
    CHECK(tmpl.out.empty());

    kftrain::test::write_file(dir + "/binary.yaml", std::string("name: a\n\x01\x02\xff\xfe", 12));
    auto binary = kftrain::test::run_kftrain({"render", "-f", dir + "/binary.yaml"});
    CHECK(binary.code == 2);
    CHECK(binary.out.empty());
    CHECK(binary.err ==
          "kftrain: error: " + dir +
              "/binary.yaml:2: is not a text file: it holds the byte \\x01 (a job file is YAML "
              "text)\n");

    // A NUL is named on its own line, not as yaml-cpp's escape error on the next.
    kftrain::test::write_file(dir + "/nul.yaml", std::string("name: a\0\nreplicas: 2\n", 20));
    auto nul = kftrain::test::run_kftrain({"render", "-f", dir + "/nul.yaml"});
    CHECK(nul.code == 2);
    CHECK(nul.err == "kftrain: error: " + dir +
                         "/nul.yaml:1: is not a text file: it holds the byte \\x00 (a job file is "
                         "YAML text)\n");
}

TEST_CASE("control characters a job file or an argument holds reach the terminal escaped",
          "[manifest][cli]") {
    std::string dir = kftrain::test::make_temp_dir();
    // A double-quoted YAML key may hold any character through its escapes: here ESC [2J, which
    // clears a terminal.
    kftrain::test::write_file(dir + "/esc.yaml", "\"k\\e[2J\": 1\nname: a\n");
    auto key = kftrain::test::run_kftrain({"render", "-f", dir + "/esc.yaml"});
    CHECK(key.code == 2);
    CHECK(key.err.find('\x1b') == std::string::npos);
    CHECK(key.err.find("k\\x1b[2J: unknown key") != std::string::npos);

    auto set = kftrain::test::run_kftrain(
        {"render", "-f", std::string(kftrain::test::source_dir()) + "/examples/mnist-ddp.yaml",
         "--set", "trainer.lr=\x1b[31m"});
    CHECK(set.code == 2);
    CHECK(set.err.find('\x1b') == std::string::npos);
    CHECK(set.err.find("(got \\x1b[31m)") != std::string::npos);

    auto flag = kftrain::test::run_kftrain({"status", "--bogus\x1b[2J"});
    CHECK(flag.code == 2);
    CHECK(flag.err.find('\x1b') == std::string::npos);
}

TEST_CASE("a job file saved as UTF-16 or UTF-32 with a byte order mark reads as UTF-8 does",
          "[manifest]") {
    const std::u16string text16 = u"name: caf\u00e9-\U0001F600\nreplicas: 3\n";
    auto encode16 = [&](bool big) {
        std::string out = big ? std::string("\xfe\xff", 2) : std::string("\xff\xfe", 2);
        for (char16_t unit : text16) {
            char hi = static_cast<char>(unit >> 8);
            char lo = static_cast<char>(unit & 0xff);
            out += big ? std::string{hi, lo} : std::string{lo, hi};
        }
        return out;
    };
    std::string utf32 = std::string("\xff\xfe\x00\x00", 4);
    for (char32_t code : std::u32string(U"name: caf\u00e9\nreplicas: 3\n")) {
        for (int i = 0; i < 4; ++i) {
            utf32 += static_cast<char>((code >> (8 * i)) & 0xff);
        }
    }
    for (const auto& [label, encoded, name] :
         std::vector<std::tuple<std::string, std::string, std::string>>{
             {"UTF-16LE", encode16(false), "caf\xc3\xa9-\xf0\x9f\x98\x80"},
             {"UTF-16BE", encode16(true), "caf\xc3\xa9-\xf0\x9f\x98\x80"},
             {"UTF-32LE", utf32, "caf\xc3\xa9"},
             {"UTF-8 with BOM", "\xef\xbb\xbfname: x\nreplicas: 3\n", "x"}}) {
        INFO(label);
        auto parsed = parse_yaml(encoded, "job.yaml");
        REQUIRE(parsed);
        CHECK((*parsed)["name"].as<std::string>() == name);
        CHECK((*parsed)["replicas"].as<int>() == 3);
    }
    auto odd = parse_yaml(encode16(false) + "x", "job.yaml");
    REQUIRE_FALSE(odd);
    CHECK(odd.error() ==
          "job.yaml: is not valid UTF-16 text after its byte order mark (save it as UTF-8)");
}
