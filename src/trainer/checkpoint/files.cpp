#include "trainer/checkpoint/files.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <filesystem>

namespace kftrain::trainer::checkpoint {
namespace fs = std::filesystem;
namespace {

constexpr const char* k_prefix = "ckpt-";
constexpr const char* k_suffix = ".pt";

}  // namespace

std::string checkpoint_name(int64_t global_step) {
    return fmt::format("{}{:08}{}", k_prefix, global_step, k_suffix);
}

std::optional<int64_t> checkpoint_step(const std::string& name) {
    const std::size_t prefix = std::strlen(k_prefix), suffix = std::strlen(k_suffix);
    if (name.size() <= prefix + suffix || name.rfind(k_prefix, 0) != 0 ||
        name.compare(name.size() - suffix, suffix, k_suffix) != 0) {
        return std::nullopt;
    }
    const auto digits = name.substr(prefix, name.size() - prefix - suffix);
    if (!std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; })) {
        return std::nullopt;
    }
    return std::stoll(digits);
}

std::vector<std::string> list_checkpoints(const std::string& dir) {
    std::vector<std::pair<int64_t, std::string>> found;
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(dir, ec)) {
        if (auto step = checkpoint_step(entry.path().filename().string())) {
            found.emplace_back(*step, entry.path().string());
        }
    }
    std::sort(found.begin(), found.end());
    std::vector<std::string> paths;
    for (auto& [step, path] : found) {
        paths.push_back(std::move(path));
    }
    return paths;
}

std::optional<std::string> newest_checkpoint(const std::string& dir) {
    auto all = list_checkpoints(dir);
    if (all.empty()) {
        return std::nullopt;
    }
    return all.back();
}

std::vector<std::string> rotate_checkpoints(const std::string& dir, int keep) {
    auto all = list_checkpoints(dir);
    std::vector<std::string> deleted;
    const std::size_t kept = static_cast<std::size_t>(std::max(keep, 1));
    for (std::size_t i = 0; i + kept < all.size(); ++i) {
        std::error_code ec;
        if (fs::remove(all[i], ec)) {
            deleted.push_back(all[i]);
        }
    }
    return deleted;
}

}  // namespace kftrain::trainer::checkpoint
