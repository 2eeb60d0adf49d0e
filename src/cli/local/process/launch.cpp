#include "cli/local/process/launch.h"

#include <fmt/format.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "cli/local/state/state_dir.h"
#include "util/redact.h"

namespace kftrain::cli::local {

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
    auto text = read_state_file(path);
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

}  // namespace kftrain::cli::local
