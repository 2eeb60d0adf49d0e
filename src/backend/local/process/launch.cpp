#include "backend/local/process/launch.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <nlohmann/json.hpp>

#include "backend/local/state/state_dir.h"
#include "job/exit_codes.h"
#include "manifest/framework.h"
#include "util/redact.h"

namespace kftrain::backend::local {

util::Result<std::map<std::string, std::string>> shell_values(
    const manifest::JobSpec& spec, const std::vector<std::string>& names) {
    const auto reserved = manifest::reserved_env(spec);
    std::map<std::string, std::string> values;
    for (const auto& name : names) {
        auto taken = std::find_if(reserved.begin(), reserved.end(),
                                  [&name](const auto& r) { return r.name == name; });
        if (taken != reserved.end()) {
            return util::error(
                fmt::format("--env-from-shell: {} {} (got {})", name, taken->why, name),
                k_exit_bad_input);
        }
        const char* value = std::getenv(name.c_str());
        if (value == nullptr) {
            return util::error(fmt::format("--env-from-shell: {} is not set in this shell", name),
                               k_exit_bad_input);
        }
        values[name] = value;
    }
    return values;
}

std::vector<ReplicaLaunch> split_launch(JobState& state,
                                        const std::map<std::string, std::string>& from_shell) {
    std::vector<ReplicaLaunch> launch;
    for (auto& replica : state.replicas) {
        ReplicaLaunch real{replica.argv, replica.env};
        for (const auto& [name, value] : from_shell) {
            real.env[name] = value;
        }
        for (auto& arg : replica.argv) {
            arg = util::redact_credentials(arg);
        }
        for (auto& [name, value] : replica.env) {
            value = util::redact_credentials(value);
        }
        for (const auto& entry : from_shell) {
            replica.env[entry.first] = "***";
        }
        launch.push_back(std::move(real));
    }
    return launch;
}

std::string launch_json(const std::vector<ReplicaLaunch>& launch) {
    nlohmann::json replicas = nlohmann::json::array();
    for (const auto& replica : launch) {
        replicas.push_back({{"argv", replica.argv}, {"env", replica.env}});
    }
    return nlohmann::json{{"replicas", replicas}}.dump(-1, ' ', false,
                                                       nlohmann::json::error_handler_t::replace);
}

util::Result<std::vector<ReplicaLaunch>> take_launch(const std::string& job) {
    const std::string path = launch_path(job);
    if (::access(path.c_str(), F_OK) != 0) {
        return std::vector<ReplicaLaunch>{};
    }
    auto text = state::read_state_file(path);
    ::unlink(path.c_str());
    if (!text) {
        return text.error_value();
    }
    try {
        std::vector<ReplicaLaunch> launch;
        const nlohmann::json doc = nlohmann::json::parse(*text);
        for (const auto& replica : doc.at("replicas")) {
            launch.push_back({replica.at("argv").get<std::vector<std::string>>(),
                              replica.at("env").get<std::map<std::string, std::string>>()});
        }
        return launch;
    } catch (const nlohmann::json::exception& e) {
        return util::error(fmt::format("{}: malformed: {}", path, e.what()));
    }
}

}  // namespace kftrain::backend::local
