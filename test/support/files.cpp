#include "support/files.h"

#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <sstream>
#include <vector>

namespace kftrain::test {
namespace {

namespace fs = std::filesystem;

// Give the owner every permission on dir and on each directory beneath it, which a test may
// have taken away, so that its entries can be removed.
void open_up(const fs::path& dir) {
    std::error_code error;
    fs::permissions(dir, fs::perms::owner_all, fs::perm_options::add, error);
    for (fs::directory_iterator it(dir, error), end; !error && it != end; it.increment(error)) {
        if (it->is_directory(error) && !it->is_symlink(error)) {
            open_up(it->path());
        }
    }
}

// The directories make_temp_dir made, removed when the program that made them exits (never by
// a child it forked, which would remove them under its parent).
class TempDirs {
  public:
    void add(const std::string& path) {
        std::lock_guard<std::mutex> lock(m_mutex);
        m_paths.push_back(path);
    }
    ~TempDirs() {
        if (::getpid() != m_owner) {
            return;
        }
        for (const auto& path : m_paths) {
            std::error_code error;
            if (fs::remove_all(path, error) == static_cast<std::uintmax_t>(-1) || error) {
                open_up(path);
                fs::remove_all(path, error);
            }
        }
    }

  private:
    pid_t m_owner = ::getpid();
    std::mutex m_mutex;
    std::vector<std::string> m_paths;
};

TempDirs& temp_dirs() {
    static TempDirs dirs;
    return dirs;
}

}  // namespace

std::string make_temp_dir() {
    std::string pattern = "/tmp/kftrain-test-XXXXXX";
    char* made = ::mkdtemp(pattern.data());
    REQUIRE(made != nullptr);
    temp_dirs().add(made);
    return made;
}

void write_file(const std::string& path, const std::string& text) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << text;
    REQUIRE(out.good());
}

std::string read_bytes(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
}

unsigned mode_of(const std::string& path) {
    struct stat st {};
    REQUIRE(::lstat(path.c_str(), &st) == 0);
    return st.st_mode;
}

}  // namespace kftrain::test
