#include "manifest/code.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

#include "manifest/yaml/emit.h"
#include "util/text.h"

namespace kftrain::manifest {
namespace {

// How attach_code starts a TrainJob's command in the code folder ($0: the folder).
constexpr const char* k_code_start = "cd \"$0\" && exec \"$@\"";

// Return the base64 of bytes (RFC 4648, padded): binaryData's values.
std::string base64(const std::string& bytes) {
    static const char* k_alphabet =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    std::string out;
    out.reserve((bytes.size() + 2) / 3 * 4);
    for (size_t i = 0; i < bytes.size(); i += 3) {
        uint32_t n = static_cast<unsigned char>(bytes[i]) << 16;
        if (i + 1 < bytes.size()) {
            n |= static_cast<unsigned char>(bytes[i + 1]) << 8;
        }
        if (i + 2 < bytes.size()) {
            n |= static_cast<unsigned char>(bytes[i + 2]);
        }
        out += k_alphabet[(n >> 18) & 63];
        out += k_alphabet[(n >> 12) & 63];
        out += i + 1 < bytes.size() ? k_alphabet[(n >> 6) & 63] : '=';
        out += i + 2 < bytes.size() ? k_alphabet[n & 63] : '=';
    }
    return out;
}

const char* owner_kind_name(CodeOwnerKind kind) {
    return kind == CodeOwnerKind::search ? "search" : "job";
}

}  // namespace

uint64_t CodeBundle::config_map_bytes() const {
    uint64_t total = 0;
    for (const auto& file : files) {
        total += code_key(file.path).size() + file.content.size();
    }
    return total;
}

const std::vector<std::string>& default_code_excludes() {
    static const std::vector<std::string> k_defaults = {".git/",
                                                        ".hg/",
                                                        ".svn/",
                                                        "__pycache__/",
                                                        "*.pyc",
                                                        ".venv/",
                                                        "venv/",
                                                        ".tox/",
                                                        ".mypy_cache/",
                                                        ".pytest_cache/",
                                                        ".ipynb_checkpoints/",
                                                        ".DS_Store",
                                                        ".kftrainignore"};
    return k_defaults;
}

const std::vector<std::string>& default_code_secrets() {
    static const std::vector<std::string> k_secrets = {
        ".env",      ".env.*",      ".envrc",  ".netrc",     "_netrc",    ".git-credentials",
        ".pgpass",   ".pypirc",     ".npmrc",  ".ssh/",      ".aws/",     ".kube/",
        ".docker/",  ".gnupg/",     ".azure/", "gcloud/",    "id_rsa*",   "id_dsa*",
        "id_ecdsa*", "id_ed25519*", "*.pem",   "*.key",      "*.p12",     "*.pfx",
        "*.jks",     "*.keystore",  "*.kdbx",  "kubeconfig", "*.tfstate", "*.tfstate.*"};
    return k_secrets;
}

std::vector<CodeRule> default_code_rules() {
    std::vector<CodeRule> rules = code_rules(default_code_excludes());
    for (auto& rule : code_rules(default_code_secrets())) {
        rule.secret = true;
        rules.push_back(std::move(rule));
    }
    return rules;
}

bool code_excluded(const std::string& path, bool is_dir, const std::vector<std::string>& patterns) {
    const auto rules = code_rules(patterns);
    const CodeRule* last = last_code_match(path, is_dir, rules);
    return last != nullptr && !last->negated;
}

std::string code_reserved_problem(const std::string& path) {
    for (size_t start = 0; start <= path.size();) {
        const size_t slash = std::min(path.find('/', start), path.size());
        if (path.compare(start, 2, "..") == 0 && slash - start >= 2) {
            return "a name starting with \"..\" cannot be a file in a ConfigMap volume (the API "
                   "server refuses it as a key and an item path; the kubelet keeps its own ..data "
                   "there)";
        }
        start = slash + 1;
    }
    return "";
}

std::string code_path_problem(const std::string& path) {
    if (!util::is_valid_utf8(path)) {
        return "is not UTF-8, which a volume's file names must be";
    }
    if (util::has_controls(path)) {
        return "holds a control character";
    }
    if (!code_reserved_problem(path).empty()) {
        return "has a part starting with \"..\"";
    }
    if (path.empty() || path.front() == '/' || path.back() == '/' || path == "." ||
        path.find("//") != std::string::npos || path.rfind("./", 0) == 0 ||
        path.find("/./") != std::string::npos ||
        (path.size() >= 2 && path.compare(path.size() - 2, 2, "/.") == 0)) {
        return "has a part that is empty or \".\"";
    }
    if (code_key(path).size() > 253) {
        return "is too long for a ConfigMap key (253 characters, with other bytes than letters, "
               "digits, '.' and '-' written as _XX)";
    }
    return "";
}

std::string code_key(const std::string& path) {
    std::string key;
    for (unsigned char c : path) {
        if (std::isalnum(c) != 0 || c == '.' || c == '-') {
            key += static_cast<char>(c);
        } else {
            key += fmt::format("_{:02x}", c);
        }
    }
    return key;
}

std::string code_config_map_name(const CodeOwner& owner, const std::string& hash) {
    return owner.name + (owner.kind == CodeOwnerKind::search ? ".search" : "") + "-code-" + hash;
}

std::string code_owner_selector(const CodeOwner& owner) {
    return fmt::format("{}={},{}={}", k_code_of_label, owner.name, k_code_for_label,
                       owner_kind_name(owner.kind));
}

util::Status check_code_size(const CodeBundle& bundle) {
    const uint64_t total = bundle.config_map_bytes();
    if (total <= k_max_code_bytes && bundle.files.size() <= k_max_code_files) {
        return util::ok_status();
    }
    std::vector<const CodeFile*> largest;
    for (const auto& file : bundle.files) {
        largest.push_back(&file);
    }
    const size_t shown = std::min<size_t>(3, largest.size());
    std::partial_sort(
        largest.begin(), largest.begin() + static_cast<long>(shown), largest.end(),
        [](const CodeFile* a, const CodeFile* b) { return a->content.size() > b->content.size(); });
    std::string named;
    for (size_t i = 0; i < shown; ++i) {
        named += fmt::format("{}{} ({} bytes)", i == 0 ? "" : ", ",
                             util::escape_controls(largest[i]->path), largest[i]->content.size());
    }
    const std::string what =
        total > k_max_code_bytes
            ? fmt::format("{} bytes in {}, past the {} a ConfigMap holds", total,
                          util::counted(static_cast<long long>(bundle.files.size()), "file"),
                          "1 MiB (1048576 bytes)")
            : fmt::format("{} files, past the {} kftrain ships", bundle.files.size(),
                          k_max_code_files);
    return util::error(
        fmt::format("code.path: {} holds {}; the largest: {}. Leave files out with code.exclude "
                    "or a .kftrainignore file, put data on a claim with `kftrain data put`, or "
                    "build an image with the code in it (docs/code.md)",
                    util::escape_controls(bundle.folder), what, named),
        2);
}

std::string default_code_image(const JobSpec& spec) {
    switch (spec.kind) {
        case JobKind::PyTorchJob:
            return "pytorch/pytorch:2.13.0-cuda13.0-cudnn9-runtime";
        case JobKind::TFJob:
            return "tensorflow/tensorflow:2.18.0";
        case JobKind::XGBoostJob:
            return "ghcr.io/kubeflow/trainer/xgboost-runtime:v2.3.0";
        case JobKind::JAXJob:
            return "nvcr.io/nvidia/jax:25.10-py3";
        case JobKind::TrainJob:
            return "";
    }
    return "";
}

std::vector<std::string> own_command(const JobSpec& spec) {
    const std::vector<std::string>& c = spec.command;
    const bool wrapped = spec.kind == JobKind::TrainJob && c.size() >= 4 && c[0] == "sh" &&
                         c[1] == "-c" && c[2] == k_code_start && c[3] == spec.code.mount_path;
    return wrapped ? std::vector<std::string>(c.begin() + 4, c.end()) : c;
}

void attach_code(JobSpec& spec, const CodeBundle& bundle, const CodeOwner& owner) {
    Volume volume;
    volume.name = k_code_volume;
    volume.config_map = code_config_map_name(owner, bundle.hash);
    volume.mount_path = spec.code.mount_path;
    volume.read_only = true;
    for (const auto& file : bundle.files) {
        volume.items.push_back({code_key(file.path), file.path, file.executable ? 0755 : 0644});
    }
    spec.volumes.push_back(std::move(volume));
    if (!spec.source.given("image")) {
        spec.image = default_code_image(spec);
    }
    if (spec.kind == JobKind::TrainJob) {
        // runtimePatches give a container no workingDir: start the command there. The script
        // is fixed; the mount path and the command stay arguments of their own.
        std::vector<std::string> wrapped = {"sh", "-c", k_code_start, spec.code.mount_path};
        wrapped.insert(wrapped.end(), spec.command.begin(), spec.command.end());
        spec.command = std::move(wrapped);
    } else {
        spec.working_dir = spec.code.mount_path;
    }
}

YAML::Node code_config_map(const JobSpec& spec, const CodeBundle& bundle, const CodeOwner& owner) {
    YAML::Node map(YAML::NodeType::Map);
    map["apiVersion"] = string_node("v1");
    map["kind"] = string_node("ConfigMap");
    YAML::Node metadata(YAML::NodeType::Map);
    metadata["name"] = string_node(code_config_map_name(owner, bundle.hash));
    metadata["namespace"] = string_node(spec.namespace_);
    YAML::Node labels(YAML::NodeType::Map);
    labels["app.kubernetes.io/managed-by"] = string_node("kftrain");
    labels[k_code_of_label] = string_node(owner.name);
    labels[k_code_for_label] = string_node(owner_kind_name(owner.kind));
    metadata["labels"] = labels;
    YAML::Node annotations(YAML::NodeType::Map);
    annotations["kftrain.io/code-hash"] = string_node(bundle.hash);
    annotations["kftrain.io/code-files"] = string_node(std::to_string(bundle.files.size()));
    metadata["annotations"] = annotations;
    map["metadata"] = metadata;
    map["immutable"] = YAML::Node(true);
    YAML::Node data(YAML::NodeType::Map);
    YAML::Node binary(YAML::NodeType::Map);
    for (const auto& file : bundle.files) {
        if (util::is_valid_utf8(file.content) && file.content.find('\0') == std::string::npos) {
            data[code_key(file.path)] = string_node(file.content);
        } else {
            binary[code_key(file.path)] = string_node(base64(file.content));
        }
    }
    if (data.size() > 0) {
        map["data"] = data;
    }
    if (binary.size() > 0) {
        map["binaryData"] = binary;
    }
    return map;
}

util::Status check_job_bytes(const YAML::Node& manifest, const CodeBundle& bundle,
                             const std::string& kind) {
    const uint64_t bytes = to_json(manifest).dump().size();
    if (bytes <= k_max_job_bytes) {
        return util::ok_status();
    }
    return util::error(
        fmt::format("code.path: {} ships {}, and each replica template of the {} names every one "
                    "to mount it: the {} would be {} bytes, past the {} kftrain submits (etcd "
                    "stores 1.5 MiB an object). Leave files out with code.exclude or a "
                    ".kftrainignore file, or build an image with the code in it (docs/limits.md)",
                    util::escape_controls(bundle.folder),
                    util::counted(static_cast<long long>(bundle.files.size()), "file"), kind, kind,
                    bytes, k_max_job_bytes),
        2);
}

}  // namespace kftrain::manifest
