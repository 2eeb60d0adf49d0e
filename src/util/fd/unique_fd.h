#pragma once

#include <unistd.h>

#include <cerrno>
#include <utility>

namespace kftrain::util {

// The one owner of a file descriptor: closes it exactly once, when it goes out of scope, is
// reset or is assigned another. Move-only; -1 means none. Closing never changes errno, so an
// error path may read errno after an owner has let go of its descriptor.
class UniqueFd {
  public:
    UniqueFd() = default;
    explicit UniqueFd(int fd) noexcept : m_fd(fd) {}
    UniqueFd(UniqueFd&& other) noexcept : m_fd(other.release()) {}
    UniqueFd& operator=(UniqueFd&& other) noexcept {
        reset(other.release());
        return *this;
    }
    UniqueFd(const UniqueFd&) = delete;
    UniqueFd& operator=(const UniqueFd&) = delete;
    ~UniqueFd() { reset(); }

    // Return the descriptor, still owned here; -1 when none.
    int get() const noexcept { return m_fd; }
    // Tell whether a descriptor is held.
    bool valid() const noexcept { return m_fd >= 0; }
    explicit operator bool() const noexcept { return valid(); }

    // Give up the descriptor without closing it and return it.
    int release() noexcept { return std::exchange(m_fd, -1); }

    // Close the descriptor held (if any) and hold fd instead.
    void reset(int fd = -1) noexcept {
        const int old = std::exchange(m_fd, fd);
        if (old >= 0) {
            const int saved = errno;
            ::close(old);
            errno = saved;
        }
    }

    // Close the descriptor now and tell whether close succeeded (errno says why not): for a
    // file just written, whose last error may only show at close. Nothing is held afterwards.
    bool close_checked() noexcept {
        const int old = release();
        return old < 0 || ::close(old) == 0;
    }

  private:
    int m_fd = -1;
};

}  // namespace kftrain::util
