#pragma once

#include <string>

#include "support/paths.h"

namespace kftrain::test {

// The example job file the tour starts from, and the search of a program of its own.
inline const std::string k_example_job =
    std::string(kftrain::test::source_dir()) + "/examples/mnist-ddp.yaml";
inline const std::string k_tune_example_job =
    std::string(kftrain::test::source_dir()) + "/examples/python-ddp/tune.yaml";

// Return the text of a file under examples/ (fails the test if unreadable).
std::string read_example(const std::string& relative);

// Return the text of a file under test/data (fails the test if unreadable).
std::string read_test_data(const std::string& relative);

// Compare text with a golden file under test/data/golden; with
// KFTRAIN_UPDATE_GOLDEN=1 in the environment, rewrite the file instead.
bool matches_golden(const std::string& name, const std::string& text);

// Make a fresh temporary directory and return its path; it is removed, with all it holds, when
// the test program exits.
std::string make_temp_dir();

// Write text to a file, replacing it.
void write_file(const std::string& path, const std::string& text);

// Return a file's bytes ("" when it cannot be read).
std::string read_bytes(const std::string& path);

// Return the mode (type and permission bits) of path itself, a symlink not followed; fails the
// test when there is nothing there.
unsigned mode_of(const std::string& path);

}  // namespace kftrain::test
