#pragma once

#include <map>
#include <string>
#include <vector>

namespace kftrain::backend::local {

// Return whether a variable of the shell that ran kftrain passes to local replicas: only a
// small allowlist does (PATH, HOME, USER, LOGNAME, SHELL, LANG, LC_*, TZ, TMPDIR, and for the
// trainer OMP_NUM_THREADS, CUDA_VISIBLE_DEVICES, LD_LIBRARY_PATH). A replica gets the job's
// env and the operator's variables on top; nothing else of the shell, so a variable the job
// takes from a Secret is absent locally unless the user passes it (--env-from-shell).
bool passes_to_replica(const std::string& name);

// Return the names of the variables in environ (NAME=value strings) that a replica must not
// inherit: every one that neither passes nor is in keep (the replica's own env).
std::vector<std::string> names_to_unset(const std::vector<std::string>& environ_entries,
                                        const std::map<std::string, std::string>& keep);

// Return this process's environment as NAME=value strings.
std::vector<std::string> current_environment();

}  // namespace kftrain::backend::local
