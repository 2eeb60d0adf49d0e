#include "estimate/plan_parts.h"

#include <fmt/format.h>

#include <algorithm>

#include "estimate/network_shape.h"
#include "estimate/running_cost.h"
#include "estimate/units.h"

namespace kftrain::estimate {
namespace {

constexpr double k_gib = 1024.0 * 1024.0 * 1024.0;

// Return the training samples per epoch as the trainer takes them.
util::Result<int64_t> epoch_samples(const JobFacts& job) {
    const auto shape = dataset_shape(job.dataset, job.model);
    if (!shape) {
        return util::error(fmt::format(
            "trainer.dataset: must be mnist, cifar10 or synthetic (got {})", job.dataset));
    }
    if (job.samples <= 0) {
        return shape->train_samples;
    }
    return job.dataset == "synthetic" ? job.samples : std::min(job.samples, shape->train_samples);
}

// Pick a value from the first source that has one, recording where it came from.
struct Pick {
    double value = 0;
    std::string source;
};

Pick first_of(std::initializer_list<std::pair<std::optional<double>, std::string>> options) {
    for (const auto& [value, source] : options) {
        if (value) {
            return {*value, source};
        }
    }
    return {};
}

// Return how many replicas share a node (0: all of them), and why.
Pick replicas_per_node(const PlanFlags& flags, const GpuPrice* node, const Plan& plan) {
    if (flags.replicas_per_node) {
        return {static_cast<double>(*flags.replicas_per_node), "flag: --replicas-per-node"};
    }
    if (flags.local) {
        return {0, "--local: every replica on this machine"};
    }
    if (node != nullptr) {
        return {static_cast<double>(node->gpus_per_node / plan.gpus_per_replica),
                fmt::format("{} has {} GPUs, {} per replica", node->node, node->gpus_per_node,
                            plan.gpus_per_replica)};
    }
    return {1, "assumed: CPU replicas on separate nodes"};
}

}  // namespace

util::Status resolve_sizes(const JobFacts& job, const PlanFlags& flags, Plan& plan) {
    EstimateInput& in = plan.input;
    auto samples = epoch_samples(job);
    if (!samples.ok()) {
        return util::error(samples.error());
    }
    in.samples = *samples;
    in.batch_size = job.batch_size;
    in.epochs = job.epochs;
    in.procs_per_replica = std::max(job.procs_per_replica, 1);
    in.replicas = flags.workers;
    if (in.replicas.empty()) {
        in.replicas = default_workers();
        in.replicas.push_back(job.replicas);
    }
    std::sort(in.replicas.begin(), in.replicas.end());
    in.replicas.erase(std::unique(in.replicas.begin(), in.replicas.end()), in.replicas.end());
    plan.assumptions.push_back({"samples per epoch", std::to_string(in.samples),
                                job.samples > 0
                                    ? "job file: trainer.samples"
                                    : fmt::format("the whole {} training set", job.dataset)});
    return util::ok_status();
}

void resolve_links(const PlanFlags& flags, const PriceCatalog& prices, Plan& plan) {
    Links& links = plan.input.links;
    const bool gpu = plan.device != "cpu";
    const GpuPrice* node = gpu ? &prices.gpus.at(plan.device) : nullptr;
    const std::string catalog =
        fmt::format("prices: {} ({})", prices.file, gpu ? node->node : std::string("cpu"));
    std::optional<double> measured;
    if (plan.profile.measured && plan.profile.world_size > 1) {
        measured = plan.profile.allreduce_bandwidth_bytes_per_s;
    }
    const Pick intra = first_of({
        {flags.intra_node_bytes_per_s, "flag: --intra-node-network"},
        {measured, fmt::format("measured: {} at world size {}", plan.profile.source,
                               plan.profile.world_size)},
        {gpu ? node->intra_node_bytes_per_s : std::nullopt, catalog},
        {gpu ? k_default_gpu_intra_bytes_per_s : k_default_cpu_intra_bytes_per_s,
         gpu ? "default: PCIe between the GPUs of a node" : "default: Gloo over loopback"},
    });
    const Pick inter = first_of({
        {flags.network_bytes_per_s, "flag: --network"},
        {gpu ? node->network_bytes_per_s
             : (prices.cpu ? prices.cpu->network_bytes_per_s : std::nullopt),
         catalog},
        {k_default_network_bytes_per_s, "default"},
    });
    links.intra_node_bytes_per_s = intra.value;
    links.inter_node_bytes_per_s = inter.value;
    const Pick latency =
        first_of({{flags.latency_s, "flag: --latency"}, {k_default_latency_s, "default"}});
    links.latency_s = latency.value;
    const Pick per_node = replicas_per_node(flags, node, plan);
    links.replicas_per_node = static_cast<int>(per_node.value);
    const Pick startup = first_of({
        {flags.startup_s, "flag: --overhead"},
        {flags.local ? k_default_local_startup_s : k_default_startup_s,
         flags.local ? "default: start processes, load libtorch and data"
                     : "default: pod scheduling, image pull, rendezvous"},
    });
    plan.input.startup_s = startup.value;
    auto& a = plan.assumptions;
    a.push_back({"intra-node bandwidth", format_bandwidth(intra.value), intra.source});
    a.push_back({"inter-node bandwidth", format_bandwidth(inter.value), inter.source});
    a.push_back({"latency per hop", fmt::format("{:g}us", latency.value * 1e6), latency.source});
    a.push_back({"replicas per node",
                 links.replicas_per_node > 0 ? std::to_string(links.replicas_per_node) : "all",
                 per_node.source});
    a.push_back({"start-up overhead", format_duration(startup.value), startup.source});
}

void resolve_price(const JobFacts& job, const PriceCatalog& prices, Plan& plan) {
    plan.currency = prices.currency;
    const std::string where =
        prices.source.empty() ? prices.file : fmt::format("{}: {}", prices.file, prices.source);
    if (plan.device != "cpu") {
        const GpuPrice& g = prices.gpus.at(plan.device);
        plan.input.price_per_replica_hour =
            replica_hour_price({0, 0, plan.gpus_per_replica, plan.device}, prices);
        plan.assumptions.push_back(
            {"price per replica-hour", format_money(*plan.input.price_per_replica_hour),
             fmt::format("{} x {} at {}/GPU-hour ({}); {}", plan.gpus_per_replica, plan.device,
                         format_money(g.per_gpu_hour), g.node, where)});
        return;
    }
    if (!prices.cpu) {
        plan.assumptions.push_back({"price per replica-hour", "unknown",
                                    fmt::format("{} has no cpu prices", prices.file)});
        return;
    }
    const double cores = job.cpu_cores > 0 ? job.cpu_cores : 1.0;
    const double gib = job.memory_bytes / k_gib;
    plan.input.price_per_replica_hour =
        replica_hour_price({job.cpu_cores, job.memory_bytes, 0, ""}, prices);
    plan.assumptions.push_back(
        {"price per replica-hour", format_money(*plan.input.price_per_replica_hour),
         fmt::format("{:g} cores{} x {}/core-hour + {:g} GiB{} x {}/GiB-hour; {}", cores,
                     job.cpu_cores > 0 ? "" : " (resources.cpu not set)",
                     format_money(prices.cpu->per_core_hour), gib,
                     job.memory_bytes > 0 ? "" : " (resources.memory not set)",
                     format_money(prices.cpu->per_gib_hour), where)});
}

}  // namespace kftrain::estimate
