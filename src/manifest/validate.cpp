#include "manifest/validate.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <iterator>
#include <regex>
#include <set>
#include <vector>

#include "manifest/code.h"
#include "manifest/framework.h"
#include "manifest/k8s/checks.h"
#include "manifest/k8s/quantity.h"
#include "manifest/k8s/rules.h"
#include "manifest/nproc.h"
#include "manifest/render/metrics_scrape.h"
#include "util/text.h"

namespace kftrain::manifest {
namespace {

using util::error;
using util::Status;

constexpr int k_max_replicas = 10000;  // the schema's bound on replicas

Status fail(const JobSpec& spec, const std::string& path, const std::string& what,
            const std::string& got) {
    return error(fmt::format("{}: {} (got {})", spec.source.locate(path), what,
                             got.empty() ? "nothing" : got));
}

Status check_name(const JobSpec& spec) {
    if (spec.name.empty()) {
        return fail(spec, "name", "is required", "");
    }
    if (!is_dns1035_label(spec.name)) {
        return fail(spec, "name",
                    "must be a DNS-1035 label: at most 63 lower-case letters, digits and '-', "
                    "starting with a letter and ending with a letter or digit",
                    spec.name);
    }
    const bool v2 = spec.kind == JobKind::TrainJob;
    const std::string longest = longest_host_name(spec);
    if (longest.size() > k_max_dns_label) {
        return fail(
            spec, "name",
            fmt::format("too long for {} replicas: the {} {} would exceed 63 characters",
                        spec.replicas, v2 ? "node pod's host name" : "operator's service", longest),
            spec.name);
    }
    if (v2 && !is_dns1123_label(spec.runtime)) {
        return fail(spec, "runtime",
                    "must name a runtime: a DNS-1123 label, or TrainingRuntime/ and one",
                    spec.runtime);
    }
    if (!is_dns1123_label(spec.namespace_)) {
        return fail(spec, "namespace", "must be a DNS-1123 label", spec.namespace_);
    }
    return util::ok_status();
}

// A TFJob's roles: what TFJob's webhook and controller need (a Chief or a Worker to decide
// success), and replicas their total.
Status check_roles(const JobSpec& spec) {
    if (!spec.roles) {
        return util::ok_status();
    }
    const Roles& roles = *spec.roles;
    if (spec.kind != JobKind::TFJob) {
        return fail(spec, "roles",
                    fmt::format("only a TFJob has roles; a {} counts its pods with replicas",
                                kind_name(spec.kind)),
                    kind_name(spec.kind));
    }
    if (roles.chief + roles.worker == 0) {
        return fail(
            spec, "roles",
            "a TFJob needs a chief or at least one worker: its success is the Chief's, "
            "else Worker 0's",
            fmt::format("chief 0, worker 0, ps {}, evaluator {}", roles.ps, roles.evaluator));
    }
    if (roles.total() > k_max_replicas) {
        return fail(spec, "roles", fmt::format("must come to at most {} replicas", k_max_replicas),
                    std::to_string(roles.total()));
    }
    if (spec.source.given("replicas") && spec.replicas != roles.total()) {
        return fail(spec, "replicas",
                    fmt::format("must be the total of roles ({}), or left out", roles.total()),
                    std::to_string(spec.replicas));
    }
    return util::ok_status();
}

Status check_replicas(const JobSpec& spec) {
    const std::string& nproc = spec.nproc_per_node;
    auto count = nproc_count(nproc);
    if (!count && !nproc_is_word(nproc)) {
        return fail(spec, "nprocPerNode", "must be auto, cpu, gpu or a positive integer", nproc);
    }
    if (count && *count > 1024) {
        return fail(spec, "nprocPerNode", "must be at most 1024 processes per node", nproc);
    }
    // A TrainJob without one runs its runtime's (a program of the user's own, docs/code.md).
    if (spec.image.empty() && (spec.kind != JobKind::TrainJob || spec.source.given("image"))) {
        return fail(spec, "image", "every container needs an image", "");
    }
    const auto& min_available = spec.run_policy.scheduling.min_available;
    if (min_available && *min_available > spec.replicas) {
        return fail(spec, "runPolicy.schedulingPolicy.minAvailable",
                    fmt::format("must be <= replicas ({})", spec.replicas),
                    std::to_string(*min_available));
    }
    if (!spec.elastic_policy) {
        return util::ok_status();
    }
    if (spec.replicas < 2) {
        return fail(spec, "elasticPolicy", "needs Workers: set replicas to 2 or more",
                    fmt::format("replicas {}", spec.replicas));
    }
    const auto& elastic = *spec.elastic_policy;
    if (elastic.min_replicas && elastic.max_replicas &&
        *elastic.min_replicas > *elastic.max_replicas) {
        return fail(spec, "elasticPolicy.minReplicas",
                    fmt::format("must be <= elasticPolicy.maxReplicas ({})", *elastic.max_replicas),
                    std::to_string(*elastic.min_replicas));
    }
    return util::ok_status();
}

// Return path with empty and "." elements and trailing slashes gone: "/data//x/." is
// "/data/x", "//" is "/".
std::string normal_mount_path(const std::string& path) {
    std::string out;
    for (const std::string& part : util::split(path, '/')) {
        if (!part.empty() && part != ".") {
            out += "/" + part;
        }
    }
    return out.empty() ? "/" : out;
}

// Return whether a mount at a (normalized) covers b: the same path or a folder above it.
bool covers(const std::string& a, const std::string& b) {
    return a == b || a == "/" ||
           (b.size() > a.size() && b.compare(0, a.size(), a) == 0 && b[a.size()] == '/');
}

// Return why a mountPath must not be used, "" when it may: a mount at / hides the image, and
// one at or under /proc, /sys or /dev hides what the container's runtime mounts there.
std::string mount_path_policy(const std::string& path) {
    if (std::string rule = mount_path_problem(path); !rule.empty()) {
        return rule;
    }
    const std::string normal = normal_mount_path(path);
    if (normal == "/") {
        return "must not be / (it would hide the image's whole file system)";
    }
    for (const char* system : {"/proc", "/sys", "/dev"}) {
        if (covers(system, normal)) {
            return fmt::format("must not be at or under {} (the container's runtime mounts it)",
                               system);
        }
    }
    return "";
}

Status check_volumes(const JobSpec& spec) {
    std::set<std::string> names;
    std::set<std::string> paths;
    for (size_t i = 0; i < spec.volumes.size(); ++i) {
        const Volume& v = spec.volumes[i];
        std::string at = fmt::format("volumes[{}]", i);
        if (!is_dns1123_label(v.name)) {
            return fail(spec, at + ".name", "must be a DNS-1123 label", v.name);
        }
        if (!names.insert(v.name).second) {
            return fail(spec, at + ".name", "is used by another volume", v.name);
        }
        if (!v.scratch && v.claim.empty() == v.config_map.empty()) {
            return fail(spec, at, "needs exactly one of claim or configMap",
                        v.claim.empty() ? "neither" : "both");
        }
        if (std::string rule = mount_path_policy(v.mount_path); !rule.empty()) {
            return fail(spec, at + ".mountPath", rule, v.mount_path);
        }
        if (!paths.insert(normal_mount_path(v.mount_path)).second) {
            return fail(spec, at + ".mountPath", "is used by another volume", v.mount_path);
        }
    }
    return util::ok_status();
}

Status check_code(const JobSpec& spec) {
    const CodeSettings& code = spec.code;
    if (code.path.empty()) {
        return util::ok_status();
    }
    if (spec.command.empty()) {
        return fail(spec, "code.path",
                    "ships a program of your own: set command to run it (kftrain-trainer, the "
                    "default command, runs no code)",
                    code.path);
    }
    if (std::string rule = mount_path_policy(code.mount_path); !rule.empty()) {
        return fail(spec, "code.mountPath", rule, code.mount_path);
    }
    const std::string code_at = normal_mount_path(code.mount_path);
    for (const auto& v : spec.volumes) {
        const std::string volume_at = normal_mount_path(v.mount_path);
        if (volume_at == code_at) {
            return fail(spec, "code.mountPath", "is a volume's mountPath too", code.mount_path);
        }
        if (covers(code_at, volume_at)) {
            // The code is a read-only ConfigMap: no mount point can be made inside it.
            return fail(spec, "code.mountPath",
                        fmt::format("holds volume {}'s mountPath {} (the code is mounted "
                                    "read-only: nothing can be mounted inside it)",
                                    v.name, v.mount_path),
                        code.mount_path);
        }
    }
    for (size_t i = 0; i < code.exclude.size(); ++i) {
        if (std::string rule = code_pattern_problem(code.exclude[i]); !rule.empty()) {
            return fail(spec, fmt::format("code.exclude[{}]", i), rule, code.exclude[i]);
        }
    }
    return util::ok_status();
}

Status check_env(const JobSpec& spec) {
    static const std::regex k_env_name("[-._a-zA-Z][-._a-zA-Z0-9]*");
    for (const auto& [name, var] : spec.env) {
        if (!std::regex_match(name, k_env_name)) {
            return fail(spec, "env." + name, "is not a valid environment variable name", name);
        }
    }
    // What the operator sets itself: the Training Operator appends its variables after the
    // job's env (the last wins), Trainer's runtime plugins refuse or replace them.
    for (const ReservedName& reserved : reserved_env(spec)) {
        auto it = spec.env.find(reserved.name);
        if (it == spec.env.end()) {
            continue;
        }
        return fail(
            spec, "env." + reserved.name, reserved.why,
            it->second.secret_name.empty() ? it->second.value : "secret " + it->second.secret_name);
    }
    return util::ok_status();
}

// Kubernetes refuses every pod whose request exceeds its limit, after the job itself was
// accepted: the job would wait for pods that never come.
Status check_resources(const JobSpec& spec) {
    struct Pair {
        const char* request_path;
        const std::string& request;
        const char* limit_path;
        const std::string& limit;
    };
    const Resources& r = spec.resources;
    for (const Pair& p :
         {Pair{"resources.cpu", r.cpu, "resources.limits.cpu", r.cpu_limit},
          Pair{"resources.memory", r.memory, "resources.limits.memory", r.memory_limit}}) {
        if (p.request.empty() || p.limit.empty()) {
            continue;
        }
        const auto request = parse_quantity(p.request);
        const auto limit = parse_quantity(p.limit);
        if (request && limit && *request > *limit) {
            return fail(spec, p.request_path,
                        fmt::format("must be at most {} ({}): Kubernetes refuses every pod "
                                    "whose request exceeds its limit",
                                    p.limit_path, p.limit),
                        p.request);
        }
    }
    return util::ok_status();
}

// trainer.metricsPort: the trainer's local processes serve at it and the ports after it, none
// of which may be a port the job's rendezvous listens on, and it reaches the trainer only
// through the args kftrain makes.
Status check_metrics_port(const JobSpec& spec) {
    if (spec.runs_trainer() && (spec.metrics.port != 0 || spec.metrics.path != "/metrics")) {
        return fail(spec, spec.metrics.port != 0 ? "metrics.port" : "metrics.path",
                    "describes a program of your own: kftrain-trainer serves at "
                    "trainer.metricsPort, path /metrics",
                    spec.metrics.port != 0 ? std::to_string(spec.metrics.port) : spec.metrics.path);
    }
    if (spec.metrics.path.empty() || spec.metrics.path.front() != '/' ||
        spec.metrics.path.find_first_of(" \t\r\n?#") != std::string::npos) {
        return fail(spec, "metrics.path", "must be an absolute HTTP path such as /metrics",
                    spec.metrics.path);
    }
    const std::string port = spec.runs_trainer() ? spec.trainer_value("metricsPort", "0")
                                                 : std::to_string(spec.metrics.port);
    if (port == "0") {
        return util::ok_status();
    }
    const std::string key = spec.runs_trainer() ? "trainer.metricsPort" : "metrics.port";
    if (spec.args && spec.runs_trainer()) {
        return fail(spec, "trainer.metricsPort",
                    "reaches the trainer only when args is unset (with args, pass "
                    "--metrics-port there and declare the port in a template)",
                    port + " with args");
    }
    const int first = spec.metrics_port();
    const int last = first + metrics_processes(spec) - 1;
    if (last > 65535) {
        return fail(spec, key,
                    "each process of a pod serves at the port plus its local rank: the last "
                    "must be at most 65535",
                    fmt::format("{}, {} processes per pod", port, metrics_processes(spec)));
    }
    for (const int taken : {operator_kind(spec.kind).port, k_trainjob_master_port}) {
        if (first <= taken && taken <= last) {
            return fail(spec, key,
                        fmt::format("{} is the rendezvous port of the job's master: choose "
                                    "another, e.g. 9400",
                                    taken),
                        first == last ? port : fmt::format("{} to {}", first, last));
        }
    }
    return util::ok_status();
}

Status check_command(const JobSpec& spec) {
    if (!spec.command.empty() && !spec.trainer.empty()) {
        return fail(spec, "trainer",
                    "applies only to the default command (kftrain-trainer); remove trainer or "
                    "command",
                    fmt::format("command {}", spec.command.front()));
    }
    // What kftrain-trainer's --bucket-mb accepts, so that no job starts only to fail there.
    const std::string bucket_mb = spec.trainer_value("bucketMb", "auto");
    const auto mib = util::parse_number(bucket_mb, false);
    if (bucket_mb != "auto" && (!mib || *mib < 0.001 || *mib > 1024)) {
        return fail(spec, "trainer.bucketMb", "must be auto or a number of MiB from 0.001 to 1024",
                    bucket_mb);
    }
    if (auto metrics = check_metrics_port(spec); !metrics) {
        return metrics;
    }
    if (!spec.mlflow.credentials_secret.empty() && spec.mlflow.tracking_uri.empty()) {
        return fail(spec, "mlflow.credentialsSecret", "needs mlflow.trackingUri",
                    spec.mlflow.credentials_secret);
    }
    return util::ok_status();
}

// What asks for a GPU must get one: without resources.gpus the pods land on nodes without
// GPUs and every replica exits at start.
Status check_gpus(const JobSpec& spec) {
    if (spec.resources.gpus > 0) {
        return util::ok_status();
    }
    const std::string none = "resources.gpus is 0";
    if (spec.nproc_per_node == "gpu") {
        return fail(spec, "nprocPerNode", "gpu starts one process per GPU: set resources.gpus",
                    "gpu, " + none);
    }
    if (spec.trainer_value("device", "auto") == "cuda") {
        return fail(spec, "trainer.device", "cuda needs GPUs: set resources.gpus", "cuda, " + none);
    }
    if (spec.trainer_value("backend", "auto") == "nccl") {
        return fail(spec, "trainer.backend", "nccl needs GPUs: set resources.gpus, or use gloo",
                    "nccl, " + none);
    }
    return util::ok_status();
}

}  // namespace

std::string longest_host_name(const JobSpec& spec) {
    std::vector<std::string> names;
    if (spec.kind == JobKind::TrainJob) {
        names.push_back(fmt::format("{}-node-0-{}", spec.name, spec.replicas - 1));
        if (job_framework(spec) == Framework::mpi) {
            names.push_back(spec.name + "-launcher-0-0");
        }
    } else {
        for (const auto& [type, count] : replica_types(spec)) {
            names.push_back(fmt::format("{}-{}-{}", spec.name, util::to_lower(type), count - 1));
        }
    }
    return *std::max_element(names.begin(), names.end(),
                             [](const auto& a, const auto& b) { return a.size() < b.size(); });
}

Status validate_job(const JobSpec& spec) {
    for (auto check :
         {check_roles, check_name, check_replicas, check_volumes, check_code, check_env,
          check_resources, check_kubernetes_rules, check_command, check_gpus}) {
        auto result = check(spec);
        if (!result) {
            return result;
        }
    }
    return util::ok_status();
}

}  // namespace kftrain::manifest
