#include "backend/local/state/code_snapshot.h"

#include <fmt/format.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <ctime>

#include "staging/tree_writer.h"

namespace kftrain::backend::local {

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
        if (done) {
            done = writer->begin_file(file.path, file.executable ? 0755 : 0644);
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
    return util::ok_status();
}

}  // namespace kftrain::backend::local
