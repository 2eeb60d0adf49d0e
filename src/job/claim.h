#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "manifest/job_spec.h"

// What `data put|get|ls` name and read back: a directory of a claim, and what lies under it.
namespace kftrain::job {

// A directory in a PersistentVolumeClaim: on a cluster reached through a helper pod, on this
// machine a directory the claim maps to (--local-path, or the localPath of the job file's
// volume for the claim).
struct ClaimTarget {
    std::string claim;
    std::string path = "/";  // normalized (normalize_claim_path below)
    std::string namespace_;  // "" for kubectl's
    std::string image;
    bool as_root = false;
    std::chrono::seconds start_timeout{120};  // for the helper pod to become Ready
    std::string local_path;                   // --local-path: the claim's directory here
    std::string job_file;                     // -f, named in errors; "" when none
    std::vector<manifest::Volume> volumes;    // the job file's
};

// One file or directory under --path in a claim.
struct Entry {
    std::string path;  // relative to --path: "train/images.bin"
    std::string type;  // file, directory, symlink or other
    uint64_t size = 0;
    int64_t modified = 0;  // seconds since the epoch
    std::string link;      // a symlink's target as it reads, not followed; "" otherwise
};

// What is under --path: the entries, sorted by path, and what they add up to.
struct Listing {
    std::string claim;
    std::string path;        // --path, normalized
    std::string local_path;  // locally: the directory it maps to; "" on the cluster
    bool found = false;      // --path itself was listed: it exists
    bool path_is_directory = true;
    std::vector<Entry> entries;
    // What could not be listed, each "PATH: why" (a path past PATH_MAX): said, never dropped.
    std::vector<std::string> left_out;

    // Return the number of files (not directories).
    size_t files() const;
    // Return the bytes of the files.
    uint64_t bytes() const;
};

}  // namespace kftrain::job
