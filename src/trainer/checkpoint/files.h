#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace kftrain::trainer::checkpoint {

// Return the file name of the checkpoint taken at global_step, e.g. ckpt-00000120.pt.
std::string checkpoint_name(int64_t global_step);

// Parse a checkpoint file name back to its global step; nullopt for other names.
std::optional<int64_t> checkpoint_step(const std::string& file_name);

// List the checkpoint paths in dir, oldest step first.
std::vector<std::string> list_checkpoints(const std::string& dir);

// Return the path of the newest checkpoint in dir, if any.
std::optional<std::string> newest_checkpoint(const std::string& dir);

// Delete all but the newest keep checkpoints in dir; return the deleted paths.
std::vector<std::string> rotate_checkpoints(const std::string& dir, int keep);

}  // namespace kftrain::trainer::checkpoint
