#include "staging/claim_path.h"

#include <fmt/format.h>

#include <algorithm>

namespace kftrain::staging {

util::Result<std::string> normalize_claim_path(const std::string& path) {
    if (std::any_of(path.begin(), path.end(),
                    [](char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7f; })) {
        return util::error(
            "--path: must be a path inside the claim without control characters (got a path "
            "with one)");
    }
    if (path.empty() || path[0] != '/') {
        return util::error(fmt::format(
            "--path: must be an absolute path inside the claim, such as /mnist (got '{}')", path));
    }
    std::string normalized;
    size_t start = 1;
    while (start <= path.size()) {
        size_t end = std::min(path.find('/', start), path.size());
        std::string part = path.substr(start, end - start);
        if (part == "..") {
            return util::error(fmt::format(
                "--path: must stay inside the claim: '..' is not allowed (got '{}')", path));
        }
        if (!part.empty() && part != ".") {
            normalized += "/" + part;
        }
        start = end + 1;
    }
    return normalized.empty() ? std::string("/") : normalized;
}

std::string pod_path(const std::string& claim_path) {
    return claim_path == "/" ? std::string(k_mount_point) : k_mount_point + claim_path;
}

std::string local_claim_path(const std::string& root, const std::string& claim_path) {
    if (claim_path == "/") {
        return root;
    }
    std::string base = root;
    while (base.size() > 1 && base.back() == '/') {
        base.pop_back();
    }
    return base + claim_path;
}

}  // namespace kftrain::staging
