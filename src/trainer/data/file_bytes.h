#pragma once

#include <string>

#include "util/result.h"

namespace kftrain::trainer::data {

// Hold a file's contents and the path actually read.
struct FileBytes {
    std::string path;
    std::string bytes;
};

// Read path, or path + ".gz" decompressed when only that exists.
util::Result<FileBytes> read_maybe_gz(const std::string& path);

// Read a whole file.
util::Result<std::string> read_file_bytes(const std::string& path);

// Write bytes to path atomically: temporary file, fsync, rename, fsync of the directory.
util::Status write_file_atomic(const std::string& path, const std::string& bytes);

}  // namespace kftrain::trainer::data
