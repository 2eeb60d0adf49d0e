#include "cli/cost/saved_profile.h"

#include <fmt/format.h>

#include <cstdint>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "cli/local/state/state_dir.h"
#include "manifest/job_kind.h"
#include "manifest/load.h"

namespace kftrain::cli::cost {

namespace fs = std::filesystem;

std::string program_fingerprint(const manifest::JobSpec& spec) {
    nlohmann::json j;
    j["kind"] = manifest::kind_name(spec.kind);
    j["runtime"] = spec.runtime;
    j["command"] = spec.command;
    j["args"] = spec.args ? nlohmann::json(*spec.args) : nlohmann::json(nullptr);
    for (const auto& [name, var] : spec.env) {
        j["env"][name] = {var.value, var.secret_name, var.secret_key};
    }
    j["nproc"] = spec.nproc_per_node;
    j["trainer"] = spec.trainer;
    j["resources"] = {spec.resources.cpu, spec.resources.memory, spec.resources.gpus};
    // FNV-1a, 64 bits: stable from one build to the next, unlike std::hash.
    std::uint64_t hash = 14695981039346656037ULL;
    for (unsigned char c : j.dump()) {
        hash = (hash ^ c) * 1099511628211ULL;
    }
    return fmt::format("{:016x}", hash);
}

std::string saved_profile_path(const std::string& job) {
    return fs::path(local::jobs_root()).parent_path().string() + "/profiles/" + job + ".json";
}

std::optional<estimate::ProgramProfile> read_saved_profile(const manifest::JobSpec& spec) {
    const std::string path = saved_profile_path(spec.name);
    std::error_code ec;
    if (!std::filesystem::is_regular_file(path, ec)) {
        return std::nullopt;
    }
    auto text = manifest::read_file(path);
    if (!text) {
        return std::nullopt;
    }
    auto profile = estimate::parse_program_profile(*text, path);
    if (!profile || profile->fingerprint != program_fingerprint(spec)) {
        return std::nullopt;
    }
    return *profile;
}

}  // namespace kftrain::cli::cost
