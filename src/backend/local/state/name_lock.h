#pragma once

#include <chrono>
#include <string>
#include <utility>

#include "util/fd/unique_fd.h"
#include "util/result.h"

namespace kftrain::backend::local {

// An exclusive flock() on a job name's lock file (<root>/.locks/<name>.lock), held while
// submit, delete or --replace change the job, so that two of them never interleave. The
// lock goes with the object (or with the process, however it ends); the file stays.
class NameLock {
  public:
    // Take the lock of a job name, waiting up to limit for whoever holds it; error (exit 2)
    // "job NAME is being submitted or deleted by another kftrain ..." when it stays taken.
    static util::Result<NameLock> acquire(const std::string& name, std::chrono::milliseconds limit);
    // Take the lock of any lock file (made mode 0600, its directory 0700), waiting up to
    // limit; error busy (exit 2) when it stays taken, or naming the path when it cannot be
    // opened or locked.
    static util::Result<NameLock> acquire_file(const std::string& path, const std::string& busy,
                                               std::chrono::milliseconds limit);

  private:
    explicit NameLock(util::UniqueFd fd) : m_fd(std::move(fd)) {}
    util::UniqueFd m_fd;  // closing it releases the flock
};

// Return the path of a job name's lock file.
std::string lock_path(const std::string& name);

}  // namespace kftrain::backend::local
