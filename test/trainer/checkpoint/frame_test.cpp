#include "trainer/checkpoint/frame.h"

#include <catch2/catch.hpp>

using namespace kftrain::trainer::checkpoint;

namespace {

using namespace std::string_literals;
const std::string k_payload = "PK\x03\x04 some torch archive bytes \x00\xff end"s;

}  // namespace

TEST_CASE("a framed payload reads back unchanged", "[trainer][checkpoint]") {
    for (const std::string& payload : {std::string(), k_payload, std::string(100000, '\x7f')}) {
        const auto framed = encode_frame(payload);
        CHECK(framed.size() == k_frame_header_size + payload.size() + k_frame_footer_size);
        const auto read = read_frame(framed);
        REQUIRE(read.ok());
        CHECK(*read == payload);
    }
}

TEST_CASE("crc32_of matches the IEEE check value", "[trainer][checkpoint]") {
    CHECK(crc32_of("123456789") == 0xcbf43926u);
    CHECK(crc32_of("") == 0u);
}

TEST_CASE("any single flipped bit of a framed checkpoint is detected", "[trainer][checkpoint]") {
    const auto framed = encode_frame(k_payload);
    for (std::size_t i = 0; i < framed.size(); ++i) {
        for (int bit = 0; bit < 8; ++bit) {
            auto damaged = framed;
            damaged[i] = static_cast<char>(damaged[i] ^ (1 << bit));
            INFO("byte " << i << " bit " << bit);
            CHECK_FALSE(read_frame(damaged).ok());
        }
    }
}

TEST_CASE("a flipped payload bit is reported as a checksum mismatch", "[trainer][checkpoint]") {
    auto framed = encode_frame(k_payload);
    framed[k_frame_header_size + 5] ^= 0x10;
    const auto read = read_frame(framed);
    REQUIRE_FALSE(read.ok());
    CHECK(read.error().rfind("checksum mismatch (stored ", 0) == 0);
    CHECK(read.error().find("the file is damaged") != std::string::npos);
}

TEST_CASE("damaged frames are refused with what is wrong", "[trainer][checkpoint]") {
    const auto framed = encode_frame(k_payload);
    auto wrong_version = framed;
    wrong_version[8] = 9;
    const std::vector<std::pair<std::string, std::string>> cases = {
        {"", "empty file"},
        {std::string(1000, '\0'), "not a kftrain checkpoint (no frame magic)"},
        {k_payload, "no checksum frame (written by an older trainer)"},
        {framed.substr(0, 20), "truncated: 20 bytes, less than the 32-byte frame"},
        {framed.substr(0, framed.size() - 3),
         "truncated: header says 36 payload bytes, the file holds 33"},
        {framed + "xyz", "trailing bytes: header says 36 payload bytes, the file holds 39"},
        {wrong_version, "unsupported frame version 9 (this trainer reads 1)"},
    };
    for (const auto& [bytes, message] : cases) {
        const auto read = read_frame(bytes);
        REQUIRE_FALSE(read.ok());
        CHECK(read.error() == message);
    }
}

TEST_CASE("a torch zip without a frame is recognised as a legacy checkpoint",
          "[trainer][checkpoint]") {
    CHECK(is_legacy_checkpoint(k_payload));
    CHECK_FALSE(is_legacy_checkpoint(encode_frame(k_payload)));
    CHECK_FALSE(is_legacy_checkpoint(""));
    CHECK_FALSE(is_legacy_checkpoint("PK"));
}

TEST_CASE("read_frame survives lengths near the limits", "[trainer][checkpoint]") {
    auto framed = encode_frame(k_payload);
    for (int i = 16; i < 24; ++i) {
        framed[i] = '\xff';  // length 2^64-1
    }
    const auto read = read_frame(framed);
    REQUIRE_FALSE(read.ok());
    CHECK(read.error().rfind("truncated: header says 18446744073709551615 payload bytes", 0) == 0);
}
