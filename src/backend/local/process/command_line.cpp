#include "backend/local/process/command_line.h"

#include <fmt/format.h>

#include <filesystem>
#include <string_view>

#include "job/exit_codes.h"
#include "manifest/render/template_values.h"
#include "util/subprocess.h"

namespace kftrain::backend::local {
namespace {

std::string trim_slash(std::string path) {
    while (path.size() > 1 && path.back() == '/') {
        path.pop_back();
    }
    return path;
}

// Map one path; unchanged when it is under no volume with a localPath.
std::string map_path(const std::string& path, const std::vector<manifest::Volume>& volumes,
                     const std::string& cwd) {
    for (const auto& volume : volumes) {
        if (volume.local_path.empty() || volume.mount_path.empty()) {
            continue;
        }
        std::string mount = trim_slash(volume.mount_path);
        bool under = path == mount ||
                     (path.size() > mount.size() && path.compare(0, mount.size(), mount) == 0 &&
                      (path[mount.size()] == '/' || mount == "/"));
        if (!under) {
            continue;
        }
        std::string local = volume.local_path;
        if (local.front() != '/' && !cwd.empty()) {
            local = cwd + "/" + local;
        }
        return trim_slash(local) + path.substr(mount == "/" ? 0 : mount.size());
    }
    return path;
}

}  // namespace

std::vector<std::string> map_volume_paths(const std::vector<std::string>& args,
                                          const std::vector<manifest::Volume>& volumes,
                                          const std::string& cwd) {
    std::vector<std::string> out;
    out.reserve(args.size());
    for (const auto& arg : args) {
        auto eq = arg.find('=');
        if (arg.rfind("--", 0) == 0 && eq != std::string::npos) {
            out.push_back(arg.substr(0, eq + 1) + map_path(arg.substr(eq + 1), volumes, cwd));
        } else {
            out.push_back(map_path(arg, volumes, cwd));
        }
    }
    return out;
}

util::Result<std::string> resolve_command(const std::string& command, const std::string& self_dir) {
    if (command == manifest::k_trainer_command && !self_dir.empty()) {
        std::string beside = self_dir + "/" + command;
        if (util::find_executable(beside)) {
            return beside;
        }
    }
    auto found = util::find_executable(command);
    if (!found) {
        return util::error(
            fmt::format("command: not found beside kftrain or on PATH (got {})", command),
            k_exit_bad_input);
    }
    return *found;
}

bool set_metrics_port(std::vector<std::string>& argv, int port) {
    constexpr std::string_view flag = "--metrics-port";
    bool found = false;
    for (std::size_t i = 1; i < argv.size(); ++i) {
        if (argv[i] == flag && i + 1 < argv.size()) {
            argv[++i] = std::to_string(port);
            found = true;
        } else if (argv[i].rfind(std::string(flag) + "=", 0) == 0) {
            argv[i] = std::string(flag) + "=" + std::to_string(port);
            found = true;
        }
    }
    return found;
}

}  // namespace kftrain::backend::local
