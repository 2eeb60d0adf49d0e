#pragma once

#include <string>

#include "staging/tar_reader.h"

namespace kftrain::staging {

// What a copy out of a claim (or into one on this machine) does with one member.
struct MemberPlan {
    enum class Action {
        ignore,     // the copy's own top directory ("." or ""): never applied
        skip,       // left out, with why, in the warnings and the summary
        directory,  // made when missing; an existing one keeps its mode
        file,       // written with mode's permission bits only
        hard_link,  // a copy of link, a file written earlier in the same copy
        symlink,    // made only where the rules allow it (put from the user's own directory)
    };
    Action action = Action::skip;
    std::string path;  // relative, cleaned: "train/a.bin"
    std::string link;  // hard_link: the cleaned path it copies; symlink: the target as stored
    uint32_t mode = 0;
    std::string why;  // skip: "a device", "an absolute path", ...
};

// Return what to do with entry: its name cleaned to a relative path with no "." or ".."
// ("./a//b" is "a/b"; "/etc/passwd" and "a/../../x" are skipped as leaving the copy), its mode
// cut to the permission bits (no setuid, setgid or sticky), and only files, directories and
// links kept: devices, FIFOs and other types are skipped. Symlinks are skipped unless
// keep_symlinks (their targets are the user's own, copied from their directory); a hard link
// whose target leaves the copy is skipped.
MemberPlan plan_member(const TarEntry& entry, bool keep_symlinks);

// Return name as a relative path without empty, "." or ".." parts, or "" with why set when it
// is absolute or climbs out; "." alone gives "".
std::string clean_member_path(const std::string& name, std::string& why);

}  // namespace kftrain::staging
