// What the local backend offers besides running jobs: its queues, claims, data staging and
// what its replicas use
// (the LocalBackend methods beside local_backend.cpp).
#include <fmt/format.h>

#include "backend/local/data/local_staging.h"
#include "backend/local/doctor.h"
#include "backend/local/local_backend.h"
#include "backend/local/queue/local_queue.h"
#include "backend/local/queue/queue_members.h"
#include "backend/local/state/job_state.h"
#include "backend/local/usage.h"
#include "job/exit_codes.h"

namespace kftrain::backend::local {
namespace {

// Return the directory a claim is on this machine: --local-path, or the localPath of the job
// file's volume for the claim. The errors (exit 2) say which of the two to give.
util::Result<std::string> claim_root(const job::ClaimTarget& target) {
    if (!target.local_path.empty()) {
        return target.local_path;
    }
    if (target.job_file.empty()) {
        return util::error(
            fmt::format("--claim {}: on this machine a claim is a directory: give --local-path "
                        "DIR, or -f JOB_FILE whose volume for this claim has a localPath",
                        target.claim),
            k_exit_bad_input);
    }
    std::string claims;
    for (const auto& v : target.volumes) {
        if (v.claim == target.claim) {
            if (v.local_path.empty()) {
                return util::error(
                    fmt::format("--claim {}: volume {} in {} has no localPath, so the claim has "
                                "no directory on this machine (add localPath to the volume, or "
                                "give --local-path)",
                                target.claim, v.name, target.job_file),
                    k_exit_bad_input);
            }
            return v.local_path;
        }
        if (!v.claim.empty()) {
            claims += (claims.empty() ? "" : ", ") + v.claim;
        }
    }
    return util::error(fmt::format("--claim {}: {} mounts no volume with this claim ({})",
                                   target.claim, target.job_file,
                                   claims.empty() ? "it mounts no claim" : "its claims: " + claims),
                       k_exit_bad_input);
}

// Return the directory of this machine a claim maps to, or why there is none.
util::Result<LocalTarget> claim_directory_of(const job::ClaimTarget& target) {
    auto root = claim_root(target);
    if (!root) {
        return util::error(root.error(), root.error_code(k_exit_bad_input));
    }
    return LocalTarget{target.claim, *root, target.path};
}

}  // namespace

job::Capabilities LocalBackend::capabilities() const {
    job::Capabilities capabilities;
    capabilities.on_this_machine = true;
    capabilities.every_job_posts = true;
    capabilities.logs_need_interrupt_catch = true;
    capabilities.replicas_are = "replicas";
    capabilities.keeps_checkpoint_after_stop = true;
    return capabilities;
}

util::Result<std::vector<job::QueueEntry>> LocalBackend::queue_entries(const std::string& queue) {
    return local_queue_entries(read_queue_members(), queue);
}

util::Result<job::QueueList> LocalBackend::queues() {
    return job::QueueList{local_queues(read_queue_members()),
                          "No queues on this machine: a job submitted with --queue NAME makes one.",
                          {}};
}

util::Result<std::vector<job::TrainingRuntime>> LocalBackend::runtimes() {
    return util::error(
        "training runtimes are a cluster's (Kubeflow Trainer v2): on this machine a TrainJob "
        "needs none",
        k_exit_bad_input);
}

util::Result<job::JobUsage> LocalBackend::usage(const std::string& job) {
    auto state = read_job_state(job);
    if (!state) {
        return state.error_value();
    }
    return measure_local_usage(*state, observed_status(*state, nullptr));
}

util::Result<job::NodeUsageList> LocalBackend::node_usage() {
    return util::error("top nodes: a cluster's nodes; this machine has no nodes (got --local)",
                       k_exit_bad_input);
}

doctor::Report LocalBackend::doctor(const job::DoctorRequest& request) {
    return local_doctor(request, m_kftrain);
}

util::Result<std::vector<std::string>> LocalBackend::claim_names(
    const std::vector<manifest::Volume>& job_volumes) {
    std::vector<std::string> claims;
    for (const auto& volume : job_volumes) {
        if (!volume.claim.empty()) {
            claims.push_back(volume.claim);
        }
    }
    return claims;
}

util::Status LocalBackend::put_data(const job::ClaimTarget& target, const std::string& local_dir,
                                    job::Reporter& report) {
    auto here = claim_directory_of(target);
    return here ? put_local(*here, local_dir, report) : util::Status(here.error_value());
}

util::Status LocalBackend::get_data(const job::ClaimTarget& target, const std::string& out_dir,
                                    bool force, job::Reporter& report) {
    auto here = claim_directory_of(target);
    return here ? get_local(*here, out_dir, force, report) : util::Status(here.error_value());
}

util::Result<job::Listing> LocalBackend::list_data(const job::ClaimTarget& target,
                                                   job::Reporter& report) {
    auto here = claim_directory_of(target);
    if (!here) {
        return here.error_value();
    }
    auto listing = list_local(*here);
    if (listing) {
        staging::warn_left_out(*listing, report.notes);
    }
    return listing;
}

}  // namespace kftrain::backend::local
