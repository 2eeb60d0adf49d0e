#pragma once

// Reading the folder a job ships (the job file's code, docs/code.md) into the files that go.

#include <ostream>
#include <string>
#include <vector>

#include "manifest/code.h"
#include "manifest/job_spec.h"
#include "util/fd/unique_fd.h"
#include "util/result.h"

namespace kftrain::load {

// Return the folder spec's code.path names: relative to the job file's folder, or to the
// current one for a job file read from standard input or given as text (no_file).
std::string code_folder(const manifest::JobSpec& spec, bool no_file);

// Return a folder as an absolute path without "." or ".." parts or a trailing '/' ("." of
// /work/proj as /work/proj), for a job file that works from wherever it is saved; the folder
// as given when the current directory cannot be read.
std::string absolute_folder(const std::string& folder);

// Open the folder code.path names. With a root (an MCP server's --root), the folder must lie
// beneath it, reached without a link or "..": a relative folder is taken from the root.
util::Result<util::UniqueFd> open_code_folder(const std::string& folder, const std::string& root);

// Read the open folder dir (named folder in messages) as the files a job ships, in path
// order, hashed: what the defaults, exclude and the folder's .kftrainignore leave out is never
// read; a FIFO, device or socket is skipped with a warning on warn, as is a link to a folder
// or to a file left out; a link leading out of the folder, a name that cannot be a file in a
// volume, or more than a ConfigMap holds is an error naming it (exit 2).
util::Result<manifest::CodeBundle> collect_code(util::UniqueFd dir, const std::string& folder,
                                                const std::vector<std::string>& exclude,
                                                std::ostream& warn);

// Return the hash of files as manifest::CodeBundle keeps it: 10 hex digits of the SHA-256 of
// every path, mode and content, in order.
std::string code_hash(const std::vector<manifest::CodeFile>& files);

}  // namespace kftrain::load
