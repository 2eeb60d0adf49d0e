#pragma once

#include <cerrno>
#include <string>
#include <string_view>

#include "util/fd/unique_fd.h"

namespace kftrain::util {

// Where a walk beneath a directory stopped.
struct BeneathStop {
    std::string walked;   // the parts walked, up to the one that stopped it ("a/b"); "" for none
    int error = 0;        // errno: ELOOP or ENOTDIR when a symlink or a file is in the way
    bool making = false;  // making the missing part failed (mkdirat), not opening it
    // Tell whether a symlink or something else than a directory stopped the walk.
    bool not_a_directory() const { return error == ELOOP || error == ENOTDIR; }
};

// The directory a walk reached (fd), or where it stopped (stop, when fd is not valid).
struct DirBeneath {
    UniqueFd fd;
    BeneathStop stop;
};

// Open the directory relative names beneath the open directory dir, part by part with
// openat(O_DIRECTORY | O_NOFOLLOW), so that a symlink or a file anywhere along it stops the
// walk and the directory returned lies beneath dir, whatever the tree becomes meanwhile.
// Empty and "." parts are skipped; a ".." part stops the walk (EXDEV). create: make each
// missing part, mode 0755 under the umask. dir itself stays open and owned by the caller.
DirBeneath open_dir_beneath(int dir, std::string_view relative, bool create);

}  // namespace kftrain::util
