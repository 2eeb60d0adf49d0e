#include "util/bounded_read.h"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

namespace kftrain::util {

Result<std::string> read_file(const std::string& path, std::size_t max_bytes,
                              const std::string& too_large_hint) {
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec)) {
        return error(fmt::format("{}: is a directory, not a file", path));
    }
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        return error(fmt::format("{}: cannot read: {}", path, std::strerror(errno)));
    }
    std::string text(max_bytes + 1, '\0');
    in.read(text.data(), static_cast<std::streamsize>(text.size()));
    if (in.bad()) {
        return error(fmt::format("{}: cannot read: {}", path, std::strerror(errno)));
    }
    text.resize(static_cast<std::size_t>(in.gcount()));
    if (text.size() > max_bytes) {
        return error(fmt::format("{}: larger than {} KiB{}", path, max_bytes / 1024,
                                 too_large_hint.empty() ? "" : "; " + too_large_hint));
    }
    return text;
}

}  // namespace kftrain::util
