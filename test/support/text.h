#pragma once

#include <ctime>
#include <string>

namespace kftrain::test {

// Return whether text contains part.
bool contains(const std::string& text, const std::string& part);

// Return the time an RFC 3339 timestamp names (the test fails where it names none).
std::time_t time_at(const std::string& timestamp);

}  // namespace kftrain::test
