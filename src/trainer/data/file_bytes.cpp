#include "trainer/data/file_bytes.h"

#include <fmt/format.h>
#include <zlib.h>

#include <filesystem>
#include <fstream>
#include <sstream>

namespace kftrain::trainer::data {
namespace fs = std::filesystem;

namespace {

util::Result<std::string> read_gz(const std::string& path) {
    gzFile file = gzopen(path.c_str(), "rb");
    if (file == nullptr) {
        return util::error(fmt::format("{}: cannot open", path));
    }
    std::string out;
    char buffer[1 << 16];
    int n = 0;
    while ((n = gzread(file, buffer, sizeof buffer)) > 0) {
        out.append(buffer, static_cast<std::size_t>(n));
    }
    int errnum = 0;
    const char* message = gzerror(file, &errnum);
    const bool failed = n < 0 || (errnum != Z_OK && errnum != Z_STREAM_END);
    const std::string error_text = failed ? message : "";
    gzclose(file);
    if (failed) {
        return util::error(fmt::format("{}: corrupt gzip data ({})", path, error_text));
    }
    return out;
}

}  // namespace

util::Result<std::string> read_file_bytes(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        return util::error(fmt::format("{}: cannot open", path));
    }
    std::ostringstream bytes;
    bytes << in.rdbuf();
    return bytes.str();
}

util::Result<FileBytes> read_maybe_gz(const std::string& path) {
    if (fs::exists(path)) {
        auto bytes = read_file_bytes(path);
        if (!bytes.ok()) {
            return util::error(bytes.error());
        }
        return FileBytes{path, std::move(*bytes)};
    }
    const auto gz = path + ".gz";
    if (fs::exists(gz)) {
        auto bytes = read_gz(gz);
        if (!bytes.ok()) {
            return util::error(bytes.error());
        }
        return FileBytes{gz, std::move(*bytes)};
    }
    return util::error(fmt::format("{}: not found (nor {}.gz)", path, path));
}

}  // namespace kftrain::trainer::data
