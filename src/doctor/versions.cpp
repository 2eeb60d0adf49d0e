#include "doctor/versions.h"

#include <fmt/format.h>

#include <cstdlib>

namespace kftrain::doctor {
namespace {

// Read the digits at text[at...] as a number below 10000; nullopt without any.
std::optional<int> number_at(const std::string& text, size_t& at) {
    const size_t start = at;
    int value = 0;
    while (at < text.size() && text[at] >= '0' && text[at] <= '9' && at - start < 4) {
        value = value * 10 + (text[at] - '0');
        ++at;
    }
    if (at == start) {
        return std::nullopt;
    }
    return value;
}

}  // namespace

std::optional<Version> parse_version(const std::string& git_version) {
    size_t at = !git_version.empty() && git_version.front() == 'v' ? 1 : 0;
    auto major = number_at(git_version, at);
    if (!major || at >= git_version.size() || git_version[at] != '.') {
        return std::nullopt;
    }
    ++at;
    auto minor = number_at(git_version, at);
    if (!minor) {
        return std::nullopt;
    }
    return Version{*major, *minor, git_version};
}

Check version_skew_check(const Version& client, const Version& server) {
    const std::string found =
        fmt::format("kubectl {} against API server {}", client.text, server.text);
    const int skew = std::abs(client.minor - server.minor);
    if (client.major == server.major && skew <= 1) {
        return check("client", "version skew", State::Ok, found + " (within one minor version)");
    }
    return check("client", "version skew", State::Warning,
                 found + fmt::format(" ({} minor versions apart; kubectl supports one)", skew),
                 fmt::format("install a kubectl of v{}.{}, within one minor version of the server",
                             server.major, server.minor),
                 false);
}

}  // namespace kftrain::doctor
