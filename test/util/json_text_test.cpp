#include "util/json_text.h"

#include <catch2/catch.hpp>
#include <string>

using kftrain::util::json_excerpt;
using kftrain::util::json_text;
using kftrain::util::parse_untrusted_json;

TEST_CASE("JSON from outside is parsed only up to 64 levels deep, never throwing", "[util]") {
    const auto nested = [](int depth) {
        return std::string(static_cast<size_t>(depth), '[') +
               std::string(static_cast<size_t>(depth), ']');
    };
    CHECK(parse_untrusted_json(nested(64)).is_array());
    CHECK(parse_untrusted_json(nested(65)).is_discarded());
    CHECK(parse_untrusted_json(nested(100000)).is_discarded());
    // Brackets inside strings are text, escaped quotes included.
    CHECK(parse_untrusted_json(R"({"a":")" + std::string(100, '[') + R"(\"["})").is_object());
    CHECK(parse_untrusted_json("{\"a\":\"\xff\"}").is_discarded());  // not UTF-8
    CHECK(parse_untrusted_json("{").is_discarded());
}

TEST_CASE("JSON text replaces invalid UTF-8 instead of throwing", "[util]") {
    nlohmann::json value = {{"line", std::string("bad \xff byte")}};
    CHECK(json_text(value) == "{\"line\":\"bad \xef\xbf\xbd byte\"}");
    nlohmann::ordered_json ordered = {{"b", std::string("\xc3")}, {"a", 1}};
    CHECK(json_text(ordered) == "{\"b\":\"\xef\xbf\xbd\",\"a\":1}");
}

TEST_CASE("a JSON excerpt for an error is cut on a character boundary", "[util]") {
    CHECK(json_excerpt(nlohmann::json::array({1, 2})) == "[1,2]");
    const std::string cut = json_excerpt(std::string(100, 'x'), 10);
    CHECK(cut == "\"xxxxxxxxx...");
    const std::string accents = json_excerpt(std::string("\"") + "\xc3\xa9\xc3\xa9\xc3\xa9", 5);
    CHECK(accents == "\"\\\"\xc3\xa9...");
}
