#include "backend/local/state/state_dir.h"

#include <algorithm>
#include <filesystem>

#include "manifest/validate.h"
#include "state/state_files.h"

namespace kftrain::backend::local {
namespace fs = std::filesystem;

std::string jobs_root() {
    return state::state_folder(state::k_jobs_folder);
}

std::string job_dir(const std::string& name) {
    return jobs_root() + "/" + name;
}

std::string state_path(const std::string& name) {
    return job_dir(name) + "/" + k_state_file;
}

std::string logs_dir(const std::string& name) {
    return job_dir(name) + "/" + k_logs_folder;
}

std::string combined_log_path(const std::string& name) {
    return logs_dir(name) + "/" + k_combined_log_file;
}

std::string last_word_path(const std::string& name) {
    return job_dir(name) + "/" + k_last_word_file;
}

std::string launch_path(const std::string& name) {
    return job_dir(name) + "/" + k_launch_file;
}

std::string supervisor_log_path(const std::string& name) {
    return job_dir(name) + "/" + k_supervisor_log_file;
}

std::string code_dir(const std::string& name) {
    return job_dir(name) + "/" + k_code_folder;
}

std::vector<std::string> job_names() {
    std::vector<std::string> names;
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(jobs_root(), ec)) {
        std::string name = entry.path().filename().string();
        if (entry.is_directory(ec) && manifest::is_dns1035_label(name)) {
            names.push_back(name);
        }
    }
    std::sort(names.begin(), names.end());
    return names;
}

}  // namespace kftrain::backend::local
