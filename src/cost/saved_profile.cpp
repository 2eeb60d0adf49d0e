#include "cost/saved_profile.h"

#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "estimate/program/sizing.h"
#include "job/exit_codes.h"
#include "manifest/code.h"
#include "manifest/job_kind.h"
#include "manifest/load.h"
#include "state/state_files.h"
#include "util/files.h"
#include "util/json_text.h"

namespace kftrain::cost {

namespace fs = std::filesystem;

namespace {

// What makes a job's program run as it does, its resources aside.
nlohmann::json program_json(const manifest::JobSpec& spec) {
    nlohmann::json j;
    j["kind"] = manifest::kind_name(spec.kind);
    j["runtime"] = spec.runtime;
    j["command"] = manifest::own_command(spec);  // as measured: before attach_code's start
    j["args"] = spec.args ? nlohmann::json(*spec.args) : nlohmann::json(nullptr);
    for (const auto& [name, var] : spec.env) {
        j["env"][name] = {var.value, var.secret_name, var.secret_key};
    }
    j["nproc"] = spec.nproc_per_node;
    j["trainer"] = spec.trainer;
    return j;
}

// FNV-1a, 64 bits, of a JSON document's text: stable from one build to the next, unlike
// std::hash. Keys are sorted, so the order they were set in does not matter.
std::string hash_text(const nlohmann::json& j) {
    std::uint64_t hash = 14695981039346656037ULL;
    for (unsigned char c : util::json_text(j)) {
        hash = (hash ^ c) * 1099511628211ULL;
    }
    return fmt::format("{:016x}", hash);
}

}  // namespace

std::string program_fingerprint(const manifest::JobSpec& spec) {
    nlohmann::json j = program_json(spec);
    j["resources"] = {spec.resources.cpu, spec.resources.memory, spec.resources.gpus};
    return hash_text(j);
}

std::string program_identity(const manifest::JobSpec& spec) {
    nlohmann::json j = program_json(spec);
    j["gpus"] = spec.resources.gpus;  // a program on a GPU is another program for memory
    return hash_text(j);
}

util::Status check_profile_out(const std::string& path) {
    auto refuse = [&path](const std::string& why) {
        return util::error(fmt::format("--profile-out: {} (got {})", why, path), k_exit_bad_input);
    };
    if (path.empty()) {
        return refuse("must name a file");
    }
    const fs::path dir = fs::path(path).has_parent_path() ? fs::path(path).parent_path() : ".";
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) {
        return refuse(fmt::format("{} is not a directory", dir.string()));
    }
    if (::access(dir.c_str(), W_OK) != 0) {
        return refuse(fmt::format("{} cannot be written: {}", dir.string(), std::strerror(errno)));
    }
    struct stat info {};
    if (::lstat(path.c_str(), &info) != 0) {
        return errno == ENOENT ? util::ok_status()
                               : refuse(fmt::format("cannot check it: {}", std::strerror(errno)));
    }
    if (S_ISLNK(info.st_mode)) {
        return refuse("is a symbolic link: name the file itself");
    }
    if (!S_ISREG(info.st_mode)) {
        return refuse("exists and is not a regular file (a directory, device, FIFO or socket)");
    }
    if (info.st_size == 0) {
        return util::ok_status();
    }
    auto text = manifest::read_file(path);
    if (!text || !estimate::is_program_profile(*text)) {
        return refuse("exists and is not a profile kftrain wrote: remove it or name another file");
    }
    return util::ok_status();
}

std::string saved_profile_path(const std::string& job, bool cluster) {
    return state::state_folder(state::k_profiles_folder) + "/" + job +
           (cluster ? ".cluster.json" : ".json");
}

namespace {

// The profile saved for a job of this name at one place, if it reads.
std::optional<estimate::ProgramProfile> read_at(const std::string& job, bool cluster) {
    const std::string path = saved_profile_path(job, cluster);
    std::error_code ec;
    if (!std::filesystem::is_regular_file(path, ec)) {
        return std::nullopt;
    }
    auto text = manifest::read_file(path);
    if (!text) {
        return std::nullopt;
    }
    auto profile = estimate::parse_program_profile(*text, path);
    if (!profile || profile->where.cluster != cluster) {
        return std::nullopt;
    }
    return *profile;
}

// The profile saved at one place, when it was measured with the job's program and settings as
// they are now (and, on the cluster, its image).
std::optional<estimate::ProgramProfile> read_one(const manifest::JobSpec& spec, bool cluster) {
    auto profile = read_at(spec.name, cluster);
    if (!profile || profile->fingerprint != program_fingerprint(spec) ||
        (cluster && profile->where.image != spec.image)) {
        return std::nullopt;
    }
    return profile;
}

// The profile saved at one place that measured the use of the job's program, whatever its
// resources (and, on the cluster, of its image).
std::optional<estimate::ProgramProfile> read_use(const manifest::JobSpec& spec, bool cluster) {
    auto profile = read_at(spec.name, cluster);
    if (!profile || profile->program_id.empty() || profile->program_id != program_identity(spec) ||
        (cluster && profile->where.image != spec.image) ||
        !estimate::recommend_sizing(profile->sizes)) {  // no replica's memory read
        return std::nullopt;
    }
    return profile;
}

}  // namespace

std::optional<estimate::ProgramProfile> read_saved_profile(const manifest::JobSpec& spec,
                                                           bool on_cluster) {
    if (on_cluster) {
        if (auto measured = read_one(spec, true)) {
            return measured;
        }
    }
    return read_one(spec, false);
}

std::optional<estimate::ProgramProfile> read_measured_use(const manifest::JobSpec& spec,
                                                          bool on_cluster) {
    if (on_cluster) {
        if (auto measured = read_use(spec, true)) {
            return measured;
        }
    }
    return read_use(spec, false);
}

std::optional<estimate::ProgramProfile> read_named_profile(const std::string& job,
                                                           bool cluster_first) {
    for (bool cluster : {cluster_first, !cluster_first}) {
        if (auto profile = read_at(job, cluster);
            profile && estimate::recommend_sizing(profile->sizes)) {
            return profile;
        }
    }
    return std::nullopt;
}

}  // namespace kftrain::cost
