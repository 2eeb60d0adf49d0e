#pragma once

#include <cstddef>
#include <string>

#include "util/result.h"

namespace kftrain::util {

// Make a directory and its missing parents, each new one mode 0700; error "cannot create
// PATH: reason".
util::Status make_private_dir(const std::string& path);

// Write all of text to fd; error "cannot write PATH: reason" (e.g. No space left on device).
util::Status write_fd(int fd, const std::string& text, const std::string& path);

// Write a file atomically, mode 0600: write PATH.tmp.PID beside it, fsync it, rename it over
// PATH and fsync the directory. Errors name PATH and the reason.
util::Status write_file_atomic(const std::string& path, const std::string& text);

// Create a file of size bytes (mode 0600) whose blocks are allocated now, so that it can be
// rewritten in place (write_in_place) when the disk is full.
util::Status reserve_file(const std::string& path, size_t size);

// Write text at the start of a reserved file, padding the rest with spaces; text longer
// than the file is an error.
util::Status write_in_place(const std::string& path, const std::string& text);

}  // namespace kftrain::util
