#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "util/result.h"

namespace kftrain::trainer::checkpoint {

// Return the file name of the checkpoint taken at global_step, e.g. ckpt-00000120.pt.
std::string checkpoint_name(int64_t global_step);

// Parse a checkpoint file name back to its global step; nullopt for other names.
std::optional<int64_t> checkpoint_step(const std::string& file_name);

// Tell whether a file name is a temporary file of an interrupted checkpoint write, as
// util::write_file_atomic names them: ckpt-<digits>.pt.tmp.<pid>.
bool is_checkpoint_temp(const std::string& file_name);

// List the checkpoint paths in dir, oldest step first.
std::vector<std::string> list_checkpoints(const std::string& dir);

// Return the path of the newest checkpoint in dir, if any.
std::optional<std::string> newest_checkpoint(const std::string& dir);

// Make dir (and its parents) and check that a file can be written in it, as the first
// checkpoint will be: the error names --checkpoint-dir, dir and why (a read-only or full file
// system, a file of that name). Training that cannot keep a checkpoint would start again from
// step 0 after any restart, so the run does not start.
util::Status check_writable_dir(const std::string& dir);

// Delete the temporary files of interrupted checkpoint writes in dir (nothing else); return
// the deleted paths.
std::vector<std::string> remove_checkpoint_temps(const std::string& dir);

// After the checkpoint of written_step was written, delete all but the newest keep
// checkpoints up to that step; return the deleted paths. Checkpoints of later steps are left
// alone: they are ones skipped as unusable at resume, so counting them could delete every
// good one.
std::vector<std::string> rotate_checkpoints(const std::string& dir, int keep, int64_t written_step);

// Say why a checkpoint file was not used.
struct Skipped {
    std::string path;
    std::string reason;
};

// Say which checkpoint to resume from: none (path empty) when dir holds no checkpoint.
struct ResumeChoice {
    std::string path;
    // Torch's archive, out of its frame.
    std::string payload;
    // Written by a trainer from before checksums: loaded unverified.
    bool legacy = false;
    // Newer checkpoints that could not be used, newest first.
    std::vector<Skipped> skipped;
};

// Restore a model from a checkpoint's payload; the error says why it does not fit.
using LoadPayload =
    std::function<util::Status(const std::string& path, const std::string& payload)>;

// Return the verified payload of a checkpoint file: its frame's checksum matches, or it is a
// legacy file (is_legacy_checkpoint, legacy set); errors read "PATH: what is wrong".
util::Result<std::string> read_checkpoint_file(const std::string& path, bool& legacy);

// Try dir's checkpoints newest first: read and verify each, then load it; return the first
// that loads, with the newer ones skipped and why. An error when dir holds checkpoints and
// none loads: starting over from step 0 would then prune them.
util::Result<ResumeChoice> choose_checkpoint(const std::string& dir, const LoadPayload& load);

}  // namespace kftrain::trainer::checkpoint
