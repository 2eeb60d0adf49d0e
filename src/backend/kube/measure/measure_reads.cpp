#include "backend/kube/measure/measure_reads.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "backend/kube/job_reader.h"
#include "backend/kube/json_fields.h"
#include "cost/measurement.h"
#include "manifest/job_kind.h"
#include "util/text.h"
#include "util/time_text.h"

namespace kftrain::backend::kube {
namespace {

using nlohmann::json;

std::string label(const json& node, const char* key) {
    return string_at(member(member(node, "metadata"), "labels"), key);
}

// One node's hardware in its own words.
std::string one_node(const json& node) {
    std::vector<std::string> parts;
    const json& capacity = member(member(node, "status"), "capacity");
    const std::string gpu = label(node, "nvidia.com/gpu.product");
    const std::string gpus = string_at(capacity, "nvidia.com/gpu");
    if (!gpu.empty()) {
        parts.push_back(gpus.empty() ? gpu : fmt::format("{} x {}", gpu, gpus));
    }
    std::string type = label(node, "node.kubernetes.io/instance-type");
    if (type.empty()) {
        type = label(node, "beta.kubernetes.io/instance-type");
    }
    if (!type.empty()) {
        parts.push_back(type);
    }
    if (gpu.empty()) {
        const std::string cpus = string_at(capacity, "cpu");
        if (!cpus.empty()) {
            parts.push_back(cpus + " CPUs");
        }
        const std::string arch = label(node, "kubernetes.io/arch");
        if (!arch.empty()) {
            parts.push_back(arch);
        }
    }
    return fmt::format("{}", fmt::join(parts, ", "));
}

}  // namespace

// The job as it runs at one size on the cluster: its writable volumes empty space of the pod's
// own (an emptyDir), so a real run's checkpoints are neither read nor written.
manifest::JobSpec cluster_job(const manifest::JobSpec& job, int replicas) {
    manifest::JobSpec m = cost::measurement_job(job, replicas);
    for (auto& volume : m.volumes) {
        if (!volume.read_only && volume.config_map.empty()) {
            volume.claim.clear();
            volume.scratch = true;
        }
    }
    return m;
}

const job::ReplicaStatus* lead_of(const job::JobStatus& status) {
    const std::string lead = lead_replica(status);
    for (const auto& replica : status.replicas) {
        if (replica.name == lead) {
            return &replica;
        }
    }
    return status.replicas.empty() ? nullptr : &status.replicas.front();
}

std::optional<StampedLine> split_stamped(const std::string& line) {
    const size_t space = line.find(' ');
    if (space == std::string::npos || space == 0 || space > 40) {
        return std::nullopt;
    }
    auto time = util::parse_timestamp_seconds(line.substr(0, space));
    if (!time) {
        return std::nullopt;
    }
    return StampedLine{*time, line.substr(space + 1)};
}

std::vector<StampedLine> StampedLog::take(const std::string& out) {
    std::vector<StampedLine> fresh;
    double last = m_last;
    int at_last = m_at_last;
    int seen_at_last = 0;  // lines of this read at the old last time, taken before
    for (const std::string& line : util::split_lines(out)) {
        auto stamped = split_stamped(line);
        if (!stamped || stamped->time < m_last) {
            continue;
        }
        if (stamped->time == m_last && seen_at_last < m_at_last) {
            ++seen_at_last;
            continue;
        }
        at_last = stamped->time == last ? at_last + 1 : 1;
        last = stamped->time;
        fresh.push_back(std::move(*stamped));
    }
    m_last = last;
    m_at_last = at_last;
    return fresh;
}

std::string StampedLog::since() const {
    if (m_last <= 0) {
        return "";
    }
    return util::format_timestamp(static_cast<std::time_t>(std::floor(m_last)));
}

std::optional<double> container_started(const json& pod, const std::string& container) {
    const json& statuses = member(member(pod, "status"), "containerStatuses");
    const json& state = member(training_container(statuses, container), "state");
    for (const char* phase : {"running", "terminated"}) {
        const std::string at = string_at(member(state, phase), "startedAt");
        if (!at.empty()) {
            return util::parse_timestamp_seconds(at);
        }
    }
    return std::nullopt;
}

std::optional<double> last_started(const json& pods,
                                   const std::vector<job::ReplicaStatus>& replicas,
                                   const std::string& fallback_container) {
    std::optional<double> last;
    for (const auto& pod : member(pods, "items")) {
        const std::string name = string_at(member(pod, "metadata"), "name");
        for (const auto& replica : replicas) {
            if (replica.pod != name) {
                continue;
            }
            const auto started = container_started(
                pod, replica.container.empty() ? fallback_container : replica.container);
            if (!started) {
                return std::nullopt;
            }
            last = std::max(last.value_or(*started), *started);
        }
    }
    return last;
}

std::string node_hardware(const json& nodes) {
    std::vector<std::string> kinds;
    for (const json& node : member(nodes, "items").is_array() ? member(nodes, "items") : json()) {
        const std::string words = one_node(node);
        if (!words.empty() && std::find(kinds.begin(), kinds.end(), words) == kinds.end()) {
            kinds.push_back(words);
        }
    }
    return util::escape_controls(fmt::format("{}", fmt::join(kinds, "; ")));
}

bool all_started(const job::JobStatus& status) {
    if (status.replicas.empty() ||
        (status.replicas_wanted > 0 &&
         static_cast<int>(status.replicas.size()) < status.replicas_wanted)) {
        return false;
    }
    return std::all_of(status.replicas.begin(), status.replicas.end(), [](const auto& r) {
        return r.state == "Running" || r.state == "Succeeded" || r.state == "Failed";
    });
}

std::string not_started_reason(const job::JobStatus& status) {
    if (!status.diagnosis.empty()) {
        return util::escape_controls(status.diagnosis.front());
    }
    std::vector<std::string> waiting;
    for (const job::ReplicaStatus& r : status.replicas) {
        if (r.state == "Running" || r.state == "Succeeded") {
            continue;
        }
        std::string what = r.name + " " + (r.state.empty() ? "Pending" : r.state);
        if (!r.reason.empty()) {
            what += ": " + r.reason;
        }
        if (!r.message.empty()) {
            what += ": " + r.message;
        }
        waiting.push_back(what);
    }
    if (waiting.empty()) {
        return status.replicas.empty()
                   ? "no pods were made for it (is the operator running, or is it queued?)"
                   : "its pods are not all running";
    }
    return util::escape_controls(fmt::format("{}", fmt::join(waiting, "; ")));
}

estimate::MeasuredWhere measured_where(KubeQueries& queries, const manifest::JobSpec& spec,
                                       const std::set<std::string>& nodes) {
    estimate::MeasuredWhere w;
    w.cluster = true;
    w.image = spec.image;
    w.namespace_ = spec.namespace_;
    if (auto context = queries.call({"config", "current-context"}, false);
        context && context->ok()) {
        w.context = util::escape_controls(util::trim(context->out));
    }
    w.nodes.assign(nodes.begin(), nodes.end());
    if (!w.nodes.empty()) {
        std::vector<std::string> args = {"get", "nodes", "-o", "json", "--"};
        args.insert(args.end(), w.nodes.begin(), w.nodes.end());
        auto read = queries.call(args, false);
        auto parsed = read && read->ok() ? parse_json_object(read->out)
                                         : util::Result<nlohmann::json>(util::error(""));
        w.hardware = parsed ? node_hardware(*parsed) : "";
    }
    return w;
}

}  // namespace kftrain::backend::kube
