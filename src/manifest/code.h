#pragma once

// The folder a job ships with it (the job file's code, docs/code.md): which of its files go,
// the ConfigMap that holds them on a cluster and how every replica finds them. Pure: the
// folder itself is read by load/collect.h.

#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <string>
#include <vector>

#include "manifest/code/patterns.h"
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
// The label a code ConfigMap carries, naming its job or search: what delete finds it by.
inline constexpr const char* k_code_of_label = "kftrain.io/code-of";
// The label naming what kind of owner that is: "job" or "search" (a job and a search may
// share a name, never their code).
inline constexpr const char* k_code_for_label = "kftrain.io/code-for";
// The name of the volume the code is mounted from.
inline constexpr const char* k_code_volume = "kftrain-code";

// What a code ConfigMap goes with: a job, or a search whose trials share it.
enum class CodeOwnerKind { job, search };
struct CodeOwner {
    std::string name;
    CodeOwnerKind kind = CodeOwnerKind::job;
};

// Return the patterns always left out: .git/, __pycache__/, *.pyc, .venv/ and the like.
const std::vector<std::string>& default_code_excludes();

// Return the patterns left out by default because they may hold secrets: .env, .ssh/, *.pem,
// .netrc and the like ("!pattern" in code.exclude or .kftrainignore brings one back).
const std::vector<std::string>& default_code_secrets();

// Return the rules every folder starts from: default_code_excludes, then default_code_secrets
// (marked secret).
std::vector<CodeRule> default_code_rules();

// Return whether a path under the folder is left out by patterns, as .gitignore reads them
// (code/patterns.h): the last that matches decides.
bool code_excluded(const std::string& path, bool is_dir, const std::vector<std::string>& patterns);

// Return why a path cannot be in a ConfigMap volume at all: a part starting with ".." (the
// API server refuses such an item path or key, and the kubelet keeps ..data there); "" when
// it can. Such a file is skipped with a warning.
std::string code_reserved_problem(const std::string& path);

// Return why a path cannot be a file in a volume (code_reserved_problem's, not UTF-8, a
// control character, a key past 253 characters); "" when it can.
std::string code_path_problem(const std::string& path);

// Return the ConfigMap key a path is kept under: letters, digits, '.' and '-' as they are,
// every other byte as _XX (hex), so that each path has its own key.
std::string code_key(const std::string& path);

// Return the ConfigMap's name: <job>-code-<hash> for a job, <search>.search-code-<hash> for
// a search (a job's name holds no '.', so the two never meet).
std::string code_config_map_name(const CodeOwner& owner, const std::string& hash);

// Return the label selector of owner's code ConfigMaps: kftrain.io/code-of=<name>,
// kftrain.io/code-for=<job|search>.
std::string code_owner_selector(const CodeOwner& owner);

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
void attach_code(JobSpec& spec, const CodeBundle& bundle, const CodeOwner& owner);

// Return the job's command as its job file gives it: a TrainJob's command without the start in
// the code folder that attach_code put before it; any other command as it is.
std::vector<std::string> own_command(const JobSpec& spec);

// Return the image a v1 job with code runs when its job file names none ("" for a TrainJob:
// its runtime's).
std::string default_code_image(const JobSpec& spec);

// Return the ConfigMap holding the bundle in spec's namespace for owner (the job, or a search):
// named by code_config_map_name, labelled with the owner's name and kind, immutable (its name
// is its content).
YAML::Node code_config_map(const JobSpec& spec, const CodeBundle& bundle, const CodeOwner& owner);

}  // namespace kftrain::manifest
