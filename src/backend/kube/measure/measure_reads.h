#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "backend/kube/queries.h"
#include "estimate/program/profile.h"
#include "job/status.h"
#include "manifest/job_spec.h"

namespace kftrain::backend::kube {

// The job as it runs at one size on the cluster (cost::measurement_job): its writable
// volumes empty space of the pod's own (an emptyDir), so a real run's checkpoints are neither
// read nor written.
manifest::JobSpec cluster_job(const manifest::JobSpec& job, int replicas);

// The replica whose rank 0 prints the progress lines, among a status's (the one lead_replica
// names, else the first); null when it has none.
const job::ReplicaStatus* lead_of(const job::JobStatus& status);

// One line of `kubectl logs --timestamps`: when the kubelet took it (seconds since the epoch,
// the node's clock) and its text.
struct StampedLine {
    double time = 0;
    std::string text;
};

// Split a line of `kubectl logs --timestamps` ("2026-12-02T03:04:05.123456789Z text"); nullopt
// when it has no timestamp.
std::optional<StampedLine> split_stamped(const std::string& line);

// The lines of a container's log read so far, as `kubectl logs --since-time` reads them again:
// a line at or before the last one taken is one taken before (the API rounds the time down to
// the second), so each read adds only what is new.
class StampedLog {
  public:
    // Take a read's output; return its new lines in order.
    std::vector<StampedLine> take(const std::string& out);
    // The time to read from next (RFC 3339), "" before the first line.
    std::string since() const;

  private:
    double m_last = 0;
    int m_at_last = 0;  // lines taken at exactly m_last
};

// When a pod's container started (running or ended: state.*.startedAt, seconds since the
// epoch), from `kubectl get pod -o json`; nullopt while it has not.
std::optional<double> container_started(const nlohmann::json& pod, const std::string& container);

// When the last of a job's replicas started its container, from `kubectl get pods -o json` of
// its pods (a replica's container, else fallback_container): a measurement's time starts once
// all run, not while its lead waits for peers not yet scheduled (a lead that waited 25s for a
// worker left a 20s window no time to measure). nullopt while one has not started.
std::optional<double> last_started(const nlohmann::json& pods,
                                   const std::vector<job::ReplicaStatus>& replicas,
                                   const std::string& fallback_container);

// Say what the nodes are, from `kubectl get nodes -o json`: the GPU product and count, the
// instance type, else CPUs and architecture ("NVIDIA-H100-80GB-HBM3 x 8, p5.48xlarge", "2 CPUs,
// amd64"); the nodes' own words, joined when they differ.
std::string node_hardware(const nlohmann::json& nodes);

// Say where a job's measurement ran: the context, its namespace, these nodes (and what they
// are, from one get of them) and its image.
estimate::MeasuredWhere measured_where(KubeQueries& queries, const manifest::JobSpec& spec,
                                       const std::set<std::string>& nodes);

// Say why a job's pods have not started: its diagnosis, else each replica that is not running
// with its reason and message, else that it has no pods yet; one line, escaped.
std::string not_started_reason(const job::JobStatus& status);

// Return whether every replica of the job has started (its container runs or has run).
bool all_started(const job::JobStatus& status);

}  // namespace kftrain::backend::kube
