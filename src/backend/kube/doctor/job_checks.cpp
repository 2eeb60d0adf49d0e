// doctor -f JOB on a cluster: what the job needs there, beside its kind (cluster_checks.cpp).
#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "backend/kube/doctor/cluster_checks.h"
#include "backend/kube/json_fields.h"
#include "backend/kube/runtimes.h"
#include "doctor/queue_fit.h"
#include "doctor/quota.h"
#include "util/text.h"

namespace kftrain::backend::kube {
namespace {

using doctor::check;
using doctor::Check;
using doctor::State;
using nlohmann::json;

void add_runtime(const ClusterReads& reads, const manifest::JobSpec& job, std::vector<Check>& out) {
    if (job.kind != manifest::JobKind::TrainJob || !reads.runtimes || !reads.runtimes->ok()) {
        return;  // not a TrainJob, or Trainer missing: the cluster's checks say so
    }
    auto runtimes = parse_runtimes(reads.runtimes->out);
    const std::string kind = job.runtime_namespaced ? "TrainingRuntime" : "ClusterTrainingRuntime";
    const std::string name = fmt::format("runtime {}/{}", kind, job.runtime);
    const bool found =
        runtimes && std::any_of(runtimes->begin(), runtimes->end(), [&](const auto& r) {
            return r.name == job.runtime && r.kind == kind;
        });
    out.push_back(found ? check("job", name, State::Ok, "exists")
                        : check("job", name, State::Missing,
                                fmt::format("no {} named {}{}", kind, job.runtime,
                                            job.runtime_namespaced ? " in " + reads.ns : ""),
                                "kftrain runtimes (the runtimes there are), then set runtime"));
}

// The job's whole request against its LocalQueue's ClusterQueue, as Kueue admits it.
Check cluster_queue_check(const ClusterReads& reads, const manifest::JobSpec& job,
                          const std::string& name) {
    const std::string check_name = "ClusterQueue " + name;
    auto list = read_json(reads.cluster_queues);
    const json* queue = nullptr;
    for (const auto& item : list ? member(*list, "items") : json()) {
        if (string_at(member(item, "metadata"), "name") == name) {
            queue = &item;
        }
    }
    if (queue == nullptr) {
        return check("job", check_name, State::Warning,
                     "quota not checked: " + (list ? std::string("no ClusterQueue of that name")
                                                   : read_failure(reads.cluster_queues)),
                     "kftrain queues -n " + reads.ns, false);
    }
    std::vector<std::string> notes;
    const auto quotas = read_json(reads.quotas);
    const auto defaults =
        quotas ? doctor::read_container_defaults(*quotas, notes) : doctor::ContainerDefaults{};
    const auto fit = doctor::cluster_queue_fit(
        doctor::job_requests(doctor::with_defaults(doctor::job_footprint(job), defaults)), *queue);
    switch (fit.verdict) {
        case doctor::QueueFitVerdict::FitsNow:
            return check("job", check_name, State::Ok, "fits now");
        case doctor::QueueFitVerdict::FitsLater:
            return check("job", check_name, State::Warning, fit.message,
                         "the job waits in its queue until others' jobs finish", false);
        default:
            return check(
                "job", check_name, State::Failed, fit.message,
                "ask for less (resources, replicas), or another queue: kftrain queues -n " +
                    reads.ns);
    }
}

void add_queue(const ClusterReads& reads, const manifest::JobSpec& job, std::vector<Check>& out) {
    if (job.queue.empty() || !reads.queues) {
        return;  // not queued, or Kueue missing: the cluster's checks say so
    }
    auto queues = read_json(reads.queues);
    bool found = false;
    std::string cluster_queue;
    for (const auto& item : queues ? member(*queues, "items") : json()) {
        if (string_at(member(item, "metadata"), "name") == job.queue) {
            found = true;
            cluster_queue = string_at(member(item, "spec"), "clusterQueue");
        }
    }
    const std::string name = "LocalQueue " + job.queue;
    out.push_back(found ? check("job", name, State::Ok, "exists in " + reads.ns)
                        : check("job", name, State::Missing,
                                "no LocalQueue of that name in " + reads.ns,
                                "kftrain queues -n " + reads.ns + " (the queues there are)"));
    if (found && !cluster_queue.empty()) {
        out.push_back(cluster_queue_check(reads, job, cluster_queue));
    }
}

void add_claims(const ClusterReads& reads, const manifest::JobSpec& job, std::vector<Check>& out) {
    std::set<std::string> claims;
    for (const auto& volume : job.volumes) {
        if (!volume.claim.empty()) {
            claims.insert(volume.claim);
        }
    }
    if (claims.empty()) {
        return;
    }
    auto list = read_json(reads.claims);
    for (const std::string& claim : claims) {
        const std::string name = "claim " + claim;
        if (!list) {
            out.push_back(check("job", name, State::Skipped,
                                "claims not read: " + read_failure(reads.claims), "", false));
            continue;
        }
        const json* found = nullptr;
        for (const auto& item : member(*list, "items")) {
            if (string_at(member(item, "metadata"), "name") == claim) {
                found = &item;
            }
        }
        if (found == nullptr) {
            out.push_back(check(
                "job", name, State::Missing, "no PersistentVolumeClaim of that name in " + reads.ns,
                "kubectl get pvc -n " + reads.ns + "; create it (docs/data-staging.md)"));
            continue;
        }
        const std::string phase = string_at(member(*found, "status"), "phase");
        out.push_back(phase == "Bound"
                          ? check("job", name, State::Ok, "Bound")
                          : check("job", name, State::Failed,
                                  util::escape_line(phase.empty() ? "not Bound" : phase) +
                                      ": the pods that mount it wait until it is Bound",
                                  "kubectl describe pvc " + claim + " -n " + reads.ns));
    }
}

void add_secrets(const ClusterReads& reads, const manifest::JobSpec& job, std::vector<Check>& out) {
    const auto secrets = job_secrets(job);
    if (secrets.empty()) {
        return;
    }
    std::set<std::string> found;
    if (reads.secrets && reads.secrets->ok()) {
        for (const std::string& line : util::split_lines(reads.secrets->out)) {
            const std::string name = util::trim(line);
            found.insert(name.substr(name.find('/') == std::string::npos ? 0 : name.find('/') + 1));
        }
    }
    for (const std::string& secret : secrets) {
        const std::string name = "secret " + secret;
        if (!reads.secrets || !reads.secrets->ok()) {
            const bool denied = read_forbidden(reads.secrets);
            out.push_back(check("job", name, State::Skipped,
                                denied ? "cannot read secrets (forbidden)"
                                       : "not read: " + read_failure(reads.secrets),
                                "", false));
        } else if (found.count(secret) != 0) {
            out.push_back(check("job", name, State::Ok, "exists"));
        } else if (std::count(job.image_pull_secrets.begin(), job.image_pull_secrets.end(),
                              secret) != 0) {
            out.push_back(check("job", name, State::Missing,
                                "no Secret of that name in " + reads.ns +
                                    ": an image from a private registry is not pulled "
                                    "(ImagePullBackOff)",
                                "kubectl create secret docker-registry " + secret + " -n " +
                                    reads.ns +
                                    " --docker-server=HOST --docker-username=USER "
                                    "--docker-password=TOKEN"));
        } else {
            out.push_back(check("job", name, State::Missing,
                                "no Secret of that name in " + reads.ns +
                                    ": the pods that read it do not start "
                                    "(CreateContainerConfigError)",
                                "kubectl create secret generic " + secret + " -n " + reads.ns +
                                    " --from-literal=KEY=VALUE"));
        }
    }
}

// A job that serves metrics is scraped through its pods' annotations, or by a PodMonitor
// (render --pod-monitor) where the Prometheus Operator serves that kind.
void add_metrics(const ClusterReads& reads, const manifest::JobSpec& job, std::vector<Check>& out) {
    const int port = job.metrics_port();
    if (port == 0) {
        return;
    }
    const auto served = served_resources(reads);
    const bool monitors = std::find(served.begin(), served.end(),
                                    "podmonitors.monitoring.coreos.com") != served.end();
    const std::string where = fmt::format("metrics at :{}{}", port, job.metrics_path());
    out.push_back(
        monitors ? check("job", "metrics", State::Ok,
                         where + "; PodMonitors are served (render --pod-monitor)")
                 : check("job", "metrics", State::Warning,
                         where + "; no PodMonitor kind here: only a Prometheus that reads "
                                 "the prometheus.io/ annotations scrapes it",
                         "docs/metrics.md (the Prometheus Operator, for a PodMonitor)", false));
}

// Every ResourceQuota of the namespace against the job; one that cannot be read is a warning
// naming what was not checked, never a "fits".
void add_quotas(const ClusterReads& reads, const manifest::JobSpec& job, std::vector<Check>& out) {
    auto list = read_json(reads.quotas);
    if (!list) {
        out.push_back(check("job", "quota", State::Warning,
                            "ResourceQuotas and LimitRanges not checked: " +
                                (read_forbidden(reads.quotas) ? std::string("forbidden")
                                                              : read_failure(reads.quotas)),
                            "kubectl describe resourcequota -n " + reads.ns, false));
        return;
    }
    const auto checks = doctor::quota_checks(*list, doctor::job_footprint(job), reads.ns);
    out.insert(out.end(), checks.begin(), checks.end());
}

}  // namespace

std::vector<std::string> job_secrets(const manifest::JobSpec& job) {
    std::set<std::string> names(job.image_pull_secrets.begin(), job.image_pull_secrets.end());
    for (const auto& [name, var] : job.env) {
        if (!var.secret_name.empty() && !var.optional) {
            names.insert(var.secret_name);
        }
    }
    if (!job.mlflow.credentials_secret.empty()) {
        names.insert(job.mlflow.credentials_secret);
    }
    return {names.begin(), names.end()};
}

std::vector<Check> job_checks(const ClusterReads& reads, const manifest::JobSpec& job) {
    std::vector<Check> out;
    add_runtime(reads, job, out);
    add_queue(reads, job, out);
    add_claims(reads, job, out);
    add_secrets(reads, job, out);
    add_metrics(reads, job, out);
    add_quotas(reads, job, out);
    const auto nodes = read_nodes(reads);
    if (nodes.empty()) {
        out.push_back(check("job", "fits on a node", State::Skipped,
                            "the nodes could not be read (listing nodes is often forbidden to "
                            "namespaced users)",
                            "", false));
    } else {
        out.push_back(doctor::fit_check(job, nodes));
    }
    return out;
}

}  // namespace kftrain::backend::kube
