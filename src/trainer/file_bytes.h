#pragma once

#include <string>

#include "trainer/result.h"

namespace kftrain::trainer {

// Hold a file's contents and the path actually read.
struct FileBytes {
    std::string path;
    std::string bytes;
};

// Read path, or path + ".gz" decompressed when only that exists.
Result<FileBytes> read_maybe_gz(const std::string& path);

// Read a whole file.
Result<std::string> read_file_bytes(const std::string& path);

}  // namespace kftrain::trainer
