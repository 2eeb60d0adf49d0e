#pragma once

#include <string>

#include "manifest/code.h"
#include "util/result.h"

namespace kftrain::backend::local {

// Write the files of the folder a job ships into dir (made here), executable bits kept: the
// copy its replicas run in, so that an edit to the folder after submit reaches neither the
// running job nor its resume.
util::Status write_code_snapshot(const std::string& dir, const manifest::CodeBundle& code);

}  // namespace kftrain::backend::local
