#pragma once

#include <string>

#include "job/claim.h"
#include "job/reporter.h"
#include "staging/listing.h"
#include "staging/local_tree.h"
#include "util/result.h"

namespace kftrain::backend::local {

// A directory in a claim on this machine: the claim maps to the directory root (a volume's
// localPath, or --local-path), and path is a normalized path inside it.
struct LocalTarget {
    std::string claim;
    std::string root;
    std::string path = "/";
};

// Copy the contents of local_dir into the target's directory, made when missing (files there
// replaced, never written through a symlink in the claim); errors carry their exit code (2 when
// the two overlap or --path passes through a symlink).
util::Status put_local(const LocalTarget& target, const std::string& local_dir,
                       job::Reporter& report);

// Copy the contents of the target's directory into out_dir (made when missing) by the rules of
// the cluster's get (staging::TreeSink); 3 when the directory does not exist, 2 when it would
// replace files in out_dir without force.
util::Status get_local(const LocalTarget& target, const std::string& out_dir, bool force,
                       job::Reporter& report);

// List what is under the target's directory; 3 when it does not exist.
util::Result<job::Listing> list_local(const LocalTarget& target);

}  // namespace kftrain::backend::local
