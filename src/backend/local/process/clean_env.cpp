#include "backend/local/process/clean_env.h"

#include <unistd.h>

#include <array>

// environ: <unistd.h> declares it (g++ defines _GNU_SOURCE).

namespace kftrain::backend::local {
namespace {

constexpr std::array<const char*, 11> k_allowed = {
    "PATH",
    "HOME",
    "USER",
    "LOGNAME",
    "SHELL",
    "LANG",
    "TZ",
    "TMPDIR",
    "OMP_NUM_THREADS",
    "CUDA_VISIBLE_DEVICES",
    "LD_LIBRARY_PATH",
};

}  // namespace

bool passes_to_replica(const std::string& name) {
    if (name.rfind("LC_", 0) == 0) {
        return true;
    }
    for (const char* allowed : k_allowed) {
        if (name == allowed) {
            return true;
        }
    }
    return false;
}

std::vector<std::string> names_to_unset(const std::vector<std::string>& environ_entries,
                                        const std::map<std::string, std::string>& keep) {
    std::vector<std::string> names;
    for (const auto& entry : environ_entries) {
        std::string name = entry.substr(0, entry.find('='));
        if (!passes_to_replica(name) && keep.count(name) == 0) {
            names.push_back(name);
        }
    }
    return names;
}

std::vector<std::string> current_environment() {
    std::vector<std::string> entries;
    for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
        entries.emplace_back(*e);
    }
    return entries;
}

}  // namespace kftrain::backend::local
