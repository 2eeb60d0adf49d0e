#include "support/text.h"

#include <catch2/catch.hpp>

#include "util/time_text.h"

namespace kftrain::test {

bool contains(const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
}

std::time_t time_at(const std::string& timestamp) {
    auto time = util::parse_timestamp(timestamp);
    if (!time) {
        FAIL("not an RFC 3339 timestamp: " << timestamp);
    }
    return *time;
}

}  // namespace kftrain::test
