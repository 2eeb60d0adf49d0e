#include "backend/local/state/name_lock.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <thread>

#include "backend/local/state/state_dir.h"
#include "job/exit_codes.h"
#include "state/state_files.h"

namespace kftrain::backend::local {
namespace {

constexpr auto k_poll = std::chrono::milliseconds(20);

}  // namespace

std::string lock_path(const std::string& name) {
    return jobs_root() + "/" + state::k_locks_folder + "/" + name + ".lock";
}

util::Result<NameLock> NameLock::acquire(const std::string& name, std::chrono::milliseconds limit) {
    const std::string path = lock_path(name);
    return acquire_file(path,
                        fmt::format("job {} is being submitted or deleted by another kftrain (it "
                                    "holds {}); try again when it is done",
                                    name, path),
                        limit);
}

util::Result<NameLock> NameLock::acquire_file(const std::string& path, const std::string& busy,
                                              std::chrono::milliseconds limit) {
    auto made = util::make_private_dir(std::filesystem::path(path).parent_path().string());
    if (!made) {
        return made.error_value();
    }
    // O_CLOEXEC: a supervisor started while the lock is held must not keep holding it.
    util::UniqueFd fd(::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600));
    if (!fd) {
        return util::error(fmt::format("cannot open {}: {}", path, std::strerror(errno)));
    }
    auto deadline = std::chrono::steady_clock::now() + limit;
    while (::flock(fd.get(), LOCK_EX | LOCK_NB) != 0) {
        if ((errno != EWOULDBLOCK && errno != EINTR) ||
            std::chrono::steady_clock::now() >= deadline) {
            const int saved = errno;
            if (saved != EWOULDBLOCK && saved != EINTR) {
                return util::error(fmt::format("cannot lock {}: {}", path, std::strerror(saved)));
            }
            return util::error(busy, k_exit_bad_input);
        }
        std::this_thread::sleep_for(k_poll);
    }
    return NameLock(std::move(fd));
}

}  // namespace kftrain::backend::local
