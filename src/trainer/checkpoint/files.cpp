#include "trainer/checkpoint/files.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>

#include "trainer/checkpoint/frame.h"
#include "trainer/data/file_bytes.h"
#include "util/fd/unique_fd.h"

namespace kftrain::trainer::checkpoint {
namespace fs = std::filesystem;
namespace {

constexpr const char* k_prefix = "ckpt-";
constexpr const char* k_suffix = ".pt";
constexpr const char* k_temp_infix = ".tmp.";

bool all_digits(const std::string& text) {
    return !text.empty() &&
           std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// Return the steps and paths of dir's checkpoints, oldest step first.
std::vector<std::pair<int64_t, std::string>> checkpoints_by_step(const std::string& dir) {
    std::vector<std::pair<int64_t, std::string>> found;
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(dir, ec)) {
        if (auto step = checkpoint_step(entry.path().filename().string())) {
            found.emplace_back(*step, entry.path().string());
        }
    }
    std::sort(found.begin(), found.end());
    return found;
}

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
    if (!all_digits(digits) || digits.size() > 18) {
        return std::nullopt;
    }
    return std::stoll(digits);
}

bool is_checkpoint_temp(const std::string& name) {
    const auto infix = name.rfind(k_temp_infix);
    return infix != std::string::npos && checkpoint_step(name.substr(0, infix)) &&
           all_digits(name.substr(infix + std::strlen(k_temp_infix)));
}

std::vector<std::string> list_checkpoints(const std::string& dir) {
    std::vector<std::string> paths;
    for (auto& [step, path] : checkpoints_by_step(dir)) {
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

std::vector<std::string> remove_checkpoint_temps(const std::string& dir) {
    std::vector<std::string> deleted;
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(dir, ec)) {
        std::error_code file_ec;
        if (is_checkpoint_temp(entry.path().filename().string()) &&
            entry.is_regular_file(file_ec) && fs::remove(entry.path(), file_ec)) {
            deleted.push_back(entry.path().string());
        }
    }
    std::sort(deleted.begin(), deleted.end());
    return deleted;
}

std::vector<std::string> rotate_checkpoints(const std::string& dir, int keep,
                                            int64_t written_step) {
    auto all = checkpoints_by_step(dir);
    all.erase(std::remove_if(all.begin(), all.end(),
                             [written_step](const auto& c) { return c.first > written_step; }),
              all.end());
    std::vector<std::string> deleted;
    const std::size_t kept = static_cast<std::size_t>(std::max(keep, 1));
    for (std::size_t i = 0; i + kept < all.size(); ++i) {
        std::error_code ec;
        if (fs::remove(all[i].second, ec)) {
            deleted.push_back(all[i].second);
        }
    }
    return deleted;
}

util::Result<std::string> read_checkpoint_file(const std::string& path, bool& legacy) {
    legacy = false;
    auto bytes = data::read_file_bytes(path);
    if (!bytes.ok()) {
        return util::error(bytes.error());
    }
    if (is_legacy_checkpoint(*bytes)) {
        // Written before frames existed: accepted so that a job resumes across an upgrade of
        // its image; torch's own loading is then the only check.
        legacy = true;
        return std::move(*bytes);
    }
    auto payload = read_frame(*bytes);
    if (!payload.ok()) {
        return util::error(fmt::format("{}: {}", path, payload.error()));
    }
    return std::string(*payload);
}

util::Result<ResumeChoice> choose_checkpoint(const std::string& dir, const LoadPayload& load) {
    const auto all = list_checkpoints(dir);
    ResumeChoice choice;
    for (auto it = all.rbegin(); it != all.rend(); ++it) {
        auto payload = read_checkpoint_file(*it, choice.legacy);
        auto loaded = payload.ok() ? load(*it, *payload) : util::Status(payload.error_value());
        if (!loaded.ok()) {
            choice.skipped.push_back(Skipped{*it, loaded.error()});
            continue;
        }
        choice.path = *it;
        choice.payload = std::move(*payload);
        return choice;
    }
    if (all.empty()) {
        return choice;
    }
    std::string reasons;
    for (const auto& s : choice.skipped) {
        reasons += fmt::format("{}{}", reasons.empty() ? "" : "; ", s.reason);
    }
    return util::error(fmt::format(
        "{}: none of its {} checkpoints can be resumed from ({}); move them away to start "
        "again from step 0",
        dir, all.size(), reasons));
}

util::Status check_writable_dir(const std::string& dir) {
    const auto fail = [&dir](const std::string& why) {
        return util::error(fmt::format("--checkpoint-dir {}: {}", dir, why));
    };
    std::error_code ec;
    if (fs::exists(dir, ec) && !fs::is_directory(dir, ec)) {
        return fail("is not a directory");
    }
    fs::create_directories(dir, ec);
    if (ec) {
        return fail("cannot create it: " + ec.message());
    }
    const auto probe =
        (fs::path(dir) / fmt::format(".kftrain-write-check.{}", ::getpid())).string();
    util::UniqueFd fd(::open(probe.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600));
    if (!fd) {
        return fail(fmt::format("cannot write in it: {}", std::strerror(errno)));
    }
    // One byte, so that a full file system says so now, not at the first checkpoint.
    const bool written = ::write(fd.get(), "k", 1) == 1;
    const int write_errno = errno;
    fd.reset();
    ::unlink(probe.c_str());
    if (!written) {
        return fail(fmt::format("cannot write in it: {}", std::strerror(write_errno)));
    }
    return util::ok_status();
}

}  // namespace kftrain::trainer::checkpoint
