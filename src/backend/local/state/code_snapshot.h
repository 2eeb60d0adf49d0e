#pragma once

#include <string>

#include "manifest/code.h"
#include "util/result.h"

namespace kftrain::backend::local {

// Write the files of the folder a job ships into dir (made here), read-only as a cluster's
// ConfigMap volume is (files 0444, executables and folders 0555): the copy its replicas run
// in, so that an edit to the folder after submit reaches neither the running job nor its
// resume, and a replica cannot write into it.
util::Status write_code_snapshot(const std::string& dir, const manifest::CodeBundle& code);

// Remove a job's state folder dir and everything in it, its read-only code copy (dir/code)
// made writable first; error "cannot remove DIR: reason".
util::Status remove_job_folder(const std::string& dir);

}  // namespace kftrain::backend::local
