#pragma once

#include <sys/types.h>

#include <cstddef>
#include <string>
#include <string_view>

#include "util/result.h"

namespace kftrain::util {

// Make a directory and its missing parents, each new one mode 0700; error "cannot create
// PATH: reason".
util::Status make_private_dir(const std::string& path);

// Write all of text to fd (the one write-all loop), again after EINTR and after a short write;
// error "cannot write PATH: reason" (a write that takes nothing: No space left on device).
util::Status write_all(int fd, std::string_view text, const std::string& path);

// Write a file atomically (the one atomic writer): write PATH.tmp.PID beside it with mode
// (under the umask), fsync it, rename it over PATH and fsync the directory that holds it.
// Errors read "cannot write PATH: reason".
util::Status write_file_atomic(const std::string& path, std::string_view text, mode_t mode = 0600);

// Write a file atomically where none is: as write_file_atomic, but linked into place, never
// over a file already there. Return true when written, false when PATH already existed (it
// is left as it was); errors as write_file_atomic's, with no temporary file left behind.
util::Result<bool> write_file_once(const std::string& path, std::string_view text,
                                   mode_t mode = 0600);

// Create a file of size bytes (mode 0600) whose blocks are allocated now, so that it can be
// rewritten in place (write_in_place) when the disk is full.
util::Status reserve_file(const std::string& path, size_t size);

// Write text at the start of a reserved file, padding the rest with spaces; text longer
// than the file is an error.
util::Status write_in_place(const std::string& path, const std::string& text);

}  // namespace kftrain::util
