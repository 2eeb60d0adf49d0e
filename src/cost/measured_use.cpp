#include "cost/measured_use.h"

#include "manifest/k8s/quantity.h"

namespace kftrain::cost {

void UseSampler::read_when_due(job::Backend& backend, const std::string& job) {
    const auto now = std::chrono::steady_clock::now();
    if (now < m_next) {
        return;
    }
    m_next = now + m_interval;
    if (auto usage = backend.usage(job)) {
        add(*usage);
    }
}

void UseSampler::add(const job::JobUsage& usage) {
    for (const job::ReplicaUsage& replica : usage.replicas) {
        m_tracker.add(replica.name, replica.memory_bytes, replica.cpu_cores);
    }
}

manifest::JobSpec with_sizing(manifest::JobSpec spec, const estimate::Sizing& sizing) {
    manifest::Resources& r = spec.resources;
    r.memory = manifest::quantity_text("memory", sizing.memory_bytes);
    r.memory_limit.clear();  // the same as the request
    if (sizing.cpu_cores) {
        const std::string& own_limit = r.cpu_limit.empty() ? r.cpu : r.cpu_limit;
        const auto limit = manifest::parse_quantity(own_limit);
        r.cpu_limit = limit && *limit > *sizing.cpu_cores ? own_limit : "";
        r.cpu = manifest::quantity_text("cpu", *sizing.cpu_cores);
    }
    return spec;
}

}  // namespace kftrain::cost
