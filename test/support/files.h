#pragma once

#include <string>

namespace kftrain::test {

// Return the text of a file under test/data (fails the test if unreadable).
std::string read_test_data(const std::string& relative);

// Compare text with a golden file under test/data/golden; with
// KFTRAIN_UPDATE_GOLDEN=1 in the environment, rewrite the file instead.
bool matches_golden(const std::string& name, const std::string& text);

// Make a fresh temporary directory and return its path.
std::string make_temp_dir();

// Write text to a file, replacing it.
void write_file(const std::string& path, const std::string& text);

}  // namespace kftrain::test
