#include "util/fd/dir_beneath.h"

#include <fcntl.h>
#include <sys/stat.h>

#include <algorithm>

namespace kftrain::util {
namespace {

int open_part(int dir, const std::string& part) {
    return ::openat(dir, part.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
}

DirBeneath stopped(std::string walked, int error, bool making) {
    return DirBeneath{UniqueFd(), BeneathStop{std::move(walked), error, making}};
}

}  // namespace

DirBeneath open_dir_beneath(int dir, std::string_view relative, bool create) {
    UniqueFd at(::fcntl(dir, F_DUPFD_CLOEXEC, 0));
    if (!at) {
        return stopped("", errno, false);
    }
    std::string walked;
    for (size_t start = 0; start <= relative.size();) {
        const size_t end = std::min(relative.find('/', start), relative.size());
        const std::string part(relative.substr(start, end - start));
        start = end + 1;
        if (part.empty() || part == ".") {
            continue;
        }
        walked += (walked.empty() ? "" : "/") + part;
        if (part == "..") {
            return stopped(walked, EXDEV, false);
        }
        int next = open_part(at.get(), part);
        if (next < 0 && errno == ENOENT && create) {
            if (::mkdirat(at.get(), part.c_str(), 0755) != 0 && errno != EEXIST) {
                return stopped(walked, errno, true);
            }
            next = open_part(at.get(), part);
        }
        if (next < 0) {
            return stopped(walked, errno, false);
        }
        at.reset(next);
    }
    return DirBeneath{std::move(at), BeneathStop{}};
}

}  // namespace kftrain::util
