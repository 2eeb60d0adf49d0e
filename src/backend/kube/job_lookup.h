#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "backend/kube/queries.h"
#include "manifest/job_kind.h"
#include "util/result.h"

namespace kftrain::backend::kube {

// A job found on the cluster: its kind and its object as kubectl printed it.
struct FoundJob {
    manifest::JobKind kind = manifest::JobKind::PyTorchJob;
    nlohmann::json object;
};

// Read the List that `kubectl get pytorchjobs.kubeflow.org,trainjobs.trainer.kubeflow.org
// NAME -o json --ignore-not-found` prints (nothing at all when neither has it; one object is
// read too) into the job it found, a PyTorchJob first should both kinds have one of that
// name; nullopt when none. Text that is not a JSON object is an error with exit code 4.
util::Result<std::optional<FoundJob>> pick_found_job(const std::string& list_text);

// Read the items of a List of jobs (or of runtimes); an error with exit code 4 when it is
// not one.
util::Result<std::vector<nlohmann::json>> list_items(const std::string& list_text);

// Finds jobs by name among both kinds, in one kubectl call when the cluster serves both,
// and remembers what it learnt: a job's kind (later reads ask for that kind alone) and a
// kind the cluster does not serve (later lookups skip it). When RBAC forbids one kind, each
// is asked alone, so the kind one may read is still found and listed.
class JobLookup {
  public:
    // Look jobs up through these queries.
    explicit JobLookup(KubeQueries& queries);

    // Return the job of this name (error code 3 when no kind has it, 4 when the cluster
    // serves neither kind or kubectl fails).
    util::Result<FoundJob> find(const std::string& name);
    // Return the job's kind: as found before, else by finding it.
    util::Result<manifest::JobKind> kind(const std::string& name);
    // Return the jobs of both kinds (of a kind the cluster serves), in every namespace
    // when all_namespaces.
    util::Result<std::vector<nlohmann::json>> list(bool all_namespaces);

  private:
    util::Result<FoundJob> find_in_both(const std::string& name);
    util::Result<FoundJob> find_in_each(const std::string& name);
    util::Result<KubectlResult> get_list(const std::vector<manifest::JobKind>& kinds,
                                         bool all_namespaces);
    util::Result<std::vector<nlohmann::json>> list_each(bool all_namespaces,
                                                        const KubectlResult& failure);
    util::Result<FoundJob> find_in_one(manifest::JobKind kind, const std::string& name,
                                       bool looking);
    util::Error not_found(const std::string& name) const;
    util::Error neither_served(const std::string& action) const;
    std::vector<manifest::JobKind> kinds_to_ask() const;

    KubeQueries& m_queries;
    std::map<std::string, manifest::JobKind> m_known;
    std::set<manifest::JobKind> m_unserved;
};

}  // namespace kftrain::backend::kube
