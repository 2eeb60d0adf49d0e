#pragma once

// The folder a job ships with it (the job file's code, docs/code.md): which of its files go,
// the ConfigMap that holds them on a cluster and how every replica finds them. Pure: the
// folder itself is read by load/collect.h.

#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <string>
#include <vector>

#include "manifest/job_spec.h"
#include "util/result.h"

namespace kftrain::manifest {

// One file of the shipped folder.
struct CodeFile {
    std::string path;  // under the folder, '/'-separated: "pkg/helper.py"
    bool executable = false;
    std::string content;
};

// The files a job ships, in path order, and the hash that names them.
struct CodeBundle {
    std::string folder;  // as messages name it
    std::vector<CodeFile> files;
    std::string hash;  // 10 hex digits of the SHA-256 of every path, mode and content

    // Return the bytes a ConfigMap holding the files counts: every key and every content.
    uint64_t config_map_bytes() const;
};

// A ConfigMap's limit (the API server's, for data and binaryData together).
inline constexpr uint64_t k_max_code_bytes = 1024 * 1024;
// The most files one job ships.
inline constexpr size_t k_max_code_files = 10000;
// The label a code ConfigMap carries, naming its job: what delete finds it by.
inline constexpr const char* k_code_of_label = "kftrain.io/code-of";
// The name of the volume the code is mounted from.
inline constexpr const char* k_code_volume = "kftrain-code";

// Return the patterns always left out: .git/, __pycache__/, *.pyc, .venv/ and the like.
const std::vector<std::string>& default_code_excludes();

// Return why a pattern of code.exclude or of .kftrainignore cannot be used; "" when it can.
std::string code_pattern_problem(const std::string& pattern);

// Return whether a path under the folder is left out by one of patterns, as .gitignore reads
// them: "name/" matches folders only; a pattern without '/' matches a name at any depth, one
// with '/' (a leading one too) the path from the folder; * ? and [...] as in the shell.
bool code_excluded(const std::string& path, bool is_dir, const std::vector<std::string>& patterns);

// Return why a path cannot be a file in a volume (not UTF-8, a control character, a part
// that is ".."); "" when it can.
std::string code_path_problem(const std::string& path);

// Return the ConfigMap key a path is kept under: letters, digits, '.' and '-' as they are,
// every other byte as _XX (hex), so that each path has its own key.
std::string code_key(const std::string& path);

// Return the ConfigMap's name: <job>-code-<hash>.
std::string code_config_map_name(const std::string& job, const std::string& hash);

// Fail (exit 2) when the bundle is past what a ConfigMap holds, naming the total, the largest
// files and the ways out.
util::Status check_code_size(const CodeBundle& bundle);

// The most bytes of a job that ships code: etcd stores at most 1.5 MiB an object, less room for
// the status its operator writes.
inline constexpr uint64_t k_max_job_bytes = 1400 * 1024;

// Fail (exit 2) when manifest (the job, or a search's Experiment), as the API server stores it
// (compact JSON), is past k_max_job_bytes: each replica template mounting the bundle names
// every file in it. kind names the manifest in the message.
util::Status check_job_bytes(const YAML::Node& manifest, const CodeBundle& bundle,
                             const std::string& kind);

// Mount the bundle in every replica: a read-only ConfigMap volume at code.mountPath, which
// becomes the working directory (a TrainJob's command is started there, as runtimePatches
// cannot set workingDir). A v1 job that names no image gets its framework's default image.
// owner names what the ConfigMap goes with: the job, or the search whose trials share it.
void attach_code(JobSpec& spec, const CodeBundle& bundle, const std::string& owner);

// Return the image a v1 job with code runs when its job file names none ("" for a TrainJob:
// its runtime's).
std::string default_code_image(const JobSpec& spec);

// Return the ConfigMap holding the bundle in spec's namespace for owner (the job, or a search):
// <owner>-code-<hash>, labelled with the owner, immutable (its name is its content).
YAML::Node code_config_map(const JobSpec& spec, const CodeBundle& bundle, const std::string& owner);

}  // namespace kftrain::manifest
