#pragma once

// Temporary directories and plain file reads and writes. Torch- and CLI-free: part of
// kftrain_test_support_base, which the trainer's tests link too.

#include <string>

namespace kftrain::test {

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
