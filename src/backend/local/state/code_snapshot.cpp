#include "backend/local/state/code_snapshot.h"

#include <fmt/format.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <ctime>
#include <filesystem>

#include "backend/local/state/state_dir.h"
#include "staging/tree_writer.h"

namespace kftrain::backend::local {
namespace {

namespace fs = std::filesystem;

// Set the mode of every folder under dir (dir too), never following a link.
void set_folder_modes(const std::string& dir, mode_t mode) {
    std::error_code ec;
    ::chmod(dir.c_str(), mode);
    for (fs::recursive_directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
        if (it->is_directory(ec) && !it->is_symlink(ec)) {
            ::chmod(it->path().c_str(), mode);
        }
    }
}

}  // namespace

util::Status write_code_snapshot(const std::string& dir, const manifest::CodeBundle& code) {
    if (::mkdir(dir.c_str(), 0700) != 0) {
        return util::error(fmt::format("cannot create {}: {}", dir, std::strerror(errno)));
    }
    auto writer = staging::TreeWriter::open(dir, false);
    if (!writer) {
        return writer.error_value();
    }
    const auto now = static_cast<int64_t>(std::time(nullptr));
    for (const auto& file : code.files) {
        const size_t slash = file.path.rfind('/');
        util::Status done = util::ok_status();
        if (slash != std::string::npos) {
            done = writer->make_directory(file.path.substr(0, slash), 0755);
        }
        if (done) {  // read-only, as the cluster's ConfigMap volume is
            done = writer->begin_file(file.path, file.executable ? 0555 : 0444);
        }
        if (done) {
            done = writer->write(file.content.data(), file.content.size());
        }
        if (done) {
            done = writer->end_file(now);
        }
        if (!done) {
            return done;
        }
    }
    set_folder_modes(dir, 0555);
    return util::ok_status();
}

util::Status remove_job_folder(const std::string& dir) {
    std::error_code ec;
    if (fs::is_directory(dir + "/" + k_code_folder, ec)) {
        set_folder_modes(dir + "/" + k_code_folder, 0755);
    }
    fs::remove_all(dir, ec);
    if (ec) {
        return util::error(fmt::format("cannot remove {}: {}", dir, ec.message()));
    }
    return util::ok_status();
}

}  // namespace kftrain::backend::local
