#pragma once

#include <sys/types.h>

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

// The mode of the files the trainer writes (with util::write_file_atomic): checkpoints, data
// sets and the MLflow run id are for other programs of the job to read too.
inline constexpr mode_t k_file_mode = 0644;

}  // namespace kftrain::trainer::data
