#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "diagnose/evidence.h"
#include "doctor/report.h"
#include "job/claim.h"
#include "job/context.h"
#include "job/description.h"
#include "job/log_read.h"
#include "job/queue_entry.h"
#include "job/queue_status.h"
#include "job/rendered_job.h"
#include "job/reporter.h"
#include "job/runtimes.h"
#include "job/status.h"
#include "job/usage.h"
#include "util/result.h"

namespace kftrain::job {

// What --dry-run asks for: nothing (apply), print only, or let the API server check it.
enum class DryRun { None, Client, Server };

// How submit should treat the job it starts.
struct SubmitFlags {
    DryRun dry_run = DryRun::None;  // None or Server (client dry runs never reach a backend)
    bool replace = false;           // replace a running job of the same name
    // Variables of kftrain's own shell every replica gets (--env-from-shell): local runs only,
    // a cluster refuses them (exit 2) since a pod takes a Secret through secretKeyRef.
    std::vector<std::string> env_from_shell;
    // Submit a job the namespace's ResourceQuotas can never admit (--force): a warning, not an
    // error (a cluster; this machine has no quotas).
    bool force = false;
    // The --max-cost estimate, when one was made: a cluster stamps it on the job (its record in
    // history keeps it beside what the job cost); none: no estimate.
    std::optional<double> estimated_cost;
};

// What a backend is, for the verbs that word a message or take a step by it: no verb asks a
// backend which one it is.
struct Capabilities {
    bool on_this_machine = false;  // jobs run here: the commands it suggests take --local
    bool every_job_posts = false;  // any job may post trainerStatus (else a TrainJob only)
    bool logs_need_interrupt_catch = false;  // its log loops end on Ctrl-C only once
                                             // util::catch_interrupts() ran (kubectl ends itself)
    std::string replicas_are = "pods";       // what a job's replicas are: "pods" or "replicas"
    // A suspended job's status still says what its program last said of its checkpoints (the
    // lines it printed as it stopped); on a cluster the pods and their logs are gone.
    bool keeps_checkpoint_after_stop = false;
};

// The queues jobs may be submitted to (`kftrain queues`), and what to say when there are none.
struct QueueList {
    std::vector<LocalQueueInfo> queues;
    std::string none_note;              // "No LocalQueues in team-a."
    std::vector<std::string> warnings;  // what could not be read ("ClusterQueues: forbidden")
};

// What `doctor` checks (docs/doctor.md): where jobs run, and what a job file's job needs there.
struct DoctorRequest {
    std::optional<manifest::JobSpec> job;  // -f JOB, loaded and validated; none: the backend only
    std::string namespace_;                // the namespace to check ("": the job's, else the
                                           // context's)
    std::string folder;  // where the job's command finds its script: its code folder, else the
                         // job file's ("": the current one)
};

// Where jobs run: the cluster through kubectl, or this machine. Every verb
// talks to this interface, so both print the same way and exit with the same
// codes. Errors carry the exit code (util::Error::code) from exit_codes.h.
class Backend {
  public:
    virtual ~Backend() = default;

    // Return what this backend is and can do (Capabilities).
    virtual Capabilities capabilities() const = 0;

    // Lifecycle: start a job, stop it, delete it, suspend, resume and scale it.
    // Start a rendered job; return the line to print ("pytorchjob/x submitted"). Warnings (a
    // quota the job fits only once others' pods end) go to report.notes.
    virtual util::Result<std::string> submit(const RenderedJob& job, const SubmitFlags& flags,
                                             Reporter& report) = 0;
    // Stop what a job runs (submit --follow --stop-on-interrupt); the local
    // backend keeps the job's state and logs, a cluster deletes the job.
    virtual util::Status stop(const std::string& job) {
        auto removed = remove(job, true);
        return removed ? util::ok_status() : util::Status(removed.error_value());
    }
    // Delete a job, stopping what runs; with wait, until it is gone. Return its kind
    // ("PyTorchJob" or "TrainJob"), found by the same lookup that deleted it.
    virtual util::Result<std::string> remove(const std::string& job, bool wait) = 0;
    // Delete a job whatever its recorded state says (`delete --force`), stopping what can be
    // found of it; exit 2 where the backend has no such thing (a cluster).
    virtual util::Status force_remove(const std::string& job) = 0;
    // Suspend a job (its replicas stop, the job stays) or resume it; returns once asked,
    // callers watch status() until it has taken effect (job/lifecycle.h).
    virtual util::Status set_suspended(const std::string& job, bool suspended) = 0;
    // Set an elastic job's Worker replicas (exit 2 where the job or backend cannot scale).
    virtual util::Status scale(const std::string& job, int workers) = 0;

    // Reading: a job's status, progress, events, logs and description; the jobs, queues, runtimes
    // and claims there are; whether jobs can run here.
    // Read a job's status (error code 3 when it does not exist).
    virtual util::Result<JobStatus> status(const std::string& job) = 0;
    // Read a job's status without the master's progress line, for loops that look at the
    // phase and replicas only (on a cluster the progress costs a kubectl logs per look).
    virtual util::Result<JobStatus> status_without_progress(const std::string& job) {
        return status(job);
    }
    // Return what the job's program last posted as trainerStatus (a TrainJob on a cluster, any
    // job locally), for the live line of a followed job; nullopt when nothing was posted or it
    // cannot be read. Safe to call from another thread while logs() runs.
    virtual std::optional<Progress> posted_progress(const std::string& /*job*/) {
        return std::nullopt;
    }
    // Return the events about a job and its replicas, oldest first (diagnose reads the pods'
    // evictions and preemptions there); none where the backend has no events (this machine).
    virtual std::vector<diagnose::EventEvidence> events(const JobStatus& /*status*/) { return {}; }
    // Return a job's kind, "PyTorchJob" or "TrainJob" (error code 3 when it does not exist).
    virtual util::Result<std::string> kind_of(const std::string& job) {
        auto status = status_without_progress(job);
        if (!status) {
            return status.error_value();
        }
        return status->kind;
    }
    // List the jobs (in every namespace when all_namespaces).
    virtual util::Result<std::vector<JobStatus>> list(bool all_namespaces) = 0;
    // Stream the logs of a job's replicas to sink until done (or, following, until the job ends).
    virtual util::Status logs(const std::string& job, const LogOptions& options,
                              const LogSink& sink) = 0;
    // Return a longer account of a job: conditions, replicas and events.
    virtual util::Result<JobDescription> describe(const std::string& job) = 0;
    // Return the jobs of a queue in queue order (`list --queue`): a LocalQueue's Workloads on a
    // cluster, this machine's queue locally.
    virtual util::Result<std::vector<QueueEntry>> queue_entries(const std::string& queue) = 0;
    // Return the queues jobs may be submitted to (`queues`).
    virtual util::Result<QueueList> queues() = 0;
    // Return the training runtimes a TrainJob may name (`runtimes`); exit 2 where jobs need
    // none (this machine).
    virtual util::Result<std::vector<TrainingRuntime>> runtimes() = 0;
    // Check that jobs can run here (`doctor`): every check at once, each bounded in time; a
    // check that cannot be made is in the report, never an error.
    virtual doctor::Report doctor(const DoctorRequest& request) = 0;
    // Return what a job's replicas use now against their requests and limits (`top`): error
    // code 3 when the job does not exist, 4 when it cannot be read; a figure that cannot be
    // read is unknown, with a warning naming what and why (never a made-up 0).
    virtual util::Result<JobUsage> usage(const std::string& job) = 0;
    // Return the nodes' allocatable against the requests of their pods (`top nodes`); exit 2
    // where there are no nodes (this machine).
    virtual util::Result<NodeUsageList> node_usage() = 0;
    // Return the claims a job may mount (shell completion): a cluster's
    // PersistentVolumeClaims, or locally the claims of the job file's volumes.
    virtual util::Result<std::vector<std::string>> claim_names(
        const std::vector<manifest::Volume>& job_volumes) = 0;

    // Data: copy into and out of a claim, and list it (searches are SearchBackend's).
    // `data put|get|ls`: copy local_dir into the claim's path, copy its contents into out_dir
    // (existing files replaced only with force), or list what is under it. Progress and what
    // was copied go to report.notes. Errors carry their exit code: 2 for bad input (nothing
    // copied), 3 for a missing claim or path, 4 for a failed copy, 5 when a helper pod is not
    // Ready in time, 130 on Ctrl-C.
    virtual util::Status put_data(const ClaimTarget& target, const std::string& local_dir,
                                  Reporter& report) = 0;
    virtual util::Status get_data(const ClaimTarget& target, const std::string& out_dir, bool force,
                                  Reporter& report) = 0;
    virtual util::Result<Listing> list_data(const ClaimTarget& target, Reporter& report) = 0;
};

}  // namespace kftrain::job
