#include "estimate/plan_parts.h"

#include <fmt/format.h>

#include <algorithm>

#include "estimate/network_shape.h"
#include "estimate/running_cost.h"
#include "estimate/units.h"
#include "util/time_text.h"
#include "wire/dataset_sizes.h"

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

// Return the start-up overhead, and why: the flag, or the profile's process start (plus
// scheduling on a cluster), or a default.
Pick startup_overhead(const PlanFlags& flags, const Profile& p) {
    if (flags.startup_s) {
        return {*flags.startup_s, "flag: --overhead"};
    }
    const std::string process = fmt::format(
        "measured: {}: process start to first step at world size {}", p.source, p.world_size);
    if (flags.local) {
        return p.startup_s > 0 ? Pick{p.startup_s, process}
                               : Pick{k_default_local_startup_s,
                                      "default: start processes, load libtorch and data"};
    }
    if (p.startup_s > 0) {
        return {k_default_startup_s + p.startup_s,
                fmt::format("default {}: pod scheduling, image pull; {}",
                            util::format_duration(k_default_startup_s), process)};
    }
    return {k_default_startup_s, "default: pod scheduling, image pull, rendezvous"};
}

// Return the time processes take to connect at world size 2 or more, and why: the start-up
// of a profile at 2+ ranks less that of one rank, or a default.
Pick rendezvous_time(const Plan& plan) {
    const Profile& one = plan.profile;
    if (one.world_size > 1 && one.startup_s > 0) {
        return {0, fmt::format("in the start-up measured at world size {}", one.world_size)};
    }
    if (one.startup_s > 0 && plan.multi_rank && plan.multi_rank->startup_s > 0) {
        return {std::max(0.0, plan.multi_rank->startup_s - one.startup_s),
                fmt::format("measured: start-up at world size {} ({}) less at 1 ({})",
                            plan.multi_rank->world_size, plan.multi_rank->source, one.source)};
    }
    return {k_default_rendezvous_s, "default: processes connecting, at world size 2 or more"};
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

// Return the test samples evaluated after every epoch, and why.
std::pair<int64_t, std::string> eval_samples(const JobFacts& job, int64_t train_samples) {
    if (job.dataset == "synthetic") {
        return {wire::synthetic_test_count(train_samples),
                "the synthetic test set: a fifth of the training samples"};
    }
    return {dataset_shape(job.dataset, job.model)->test_samples,
            fmt::format("the whole {} test set", job.dataset)};
}

// Assumed for checkpoints a profile did not time: parameters and momentum, to a volume.
constexpr double k_checkpoint_size_factor = 2;
constexpr double k_default_disk_bytes_per_s = 200e6;

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
    const auto [test, why] = eval_samples(job, in.samples);
    in.run.eval_samples = test;
    plan.assumptions.push_back({"test samples per epoch", std::to_string(test), why});
    return util::ok_status();
}

void resolve_run(const JobFacts& job, Plan& plan) {
    const Profile& p = plan.profile;
    RunCost& run = plan.input.run;
    auto& a = plan.assumptions;
    const std::string measured = fmt::format("measured: {}", p.source);
    const double steps_extra = std::max(0.0, p.warmup_s - p.warmup_steps * p.compute_s_per_step);
    run.warmup_extra_s = steps_extra + p.eval_warmup_s;
    if (p.warmup_s > 0) {
        a.push_back({"warm-up", "+" + util::format_duration(run.warmup_extra_s),
                     fmt::format("{}: the first {} steps +{}, the first evaluation +{} (once a "
                                 "run)",
                                 measured, p.warmup_steps, util::format_duration(steps_extra),
                                 util::format_duration(p.eval_warmup_s))});
    } else {
        a.push_back({"warm-up", "0s",
                     p.measured ? "not measured: a profile without warmup_s"
                                : "none assumed: built-in profile"});
    }
    const bool eval_measured = p.eval_s_per_sample > 0;
    run.eval_s_per_sample =
        eval_measured ? p.eval_s_per_sample : p.forward_s_per_step / std::max(job.batch_size, 1);
    a.push_back(
        {"evaluation per test sample", util::format_duration(run.eval_s_per_sample),
         eval_measured ? measured : "assumed: the profile's forward time per training sample"});
    run.checkpoints = job.checkpoints;
    run.checkpoint_every = job.checkpoint_every;
    if (!job.checkpoints) {
        a.push_back({"checkpoints", "none", "job file: trainer.checkpointDir not set"});
        return;
    }
    const std::string when =
        job.checkpoint_every > 0
            ? fmt::format("at every epoch's end and every {} steps (trainer.checkpointEvery)",
                          job.checkpoint_every)
            : std::string("at every epoch's end");
    if (p.checkpoint_s > 0) {
        run.checkpoint_s = p.checkpoint_s;
        a.push_back(
            {"checkpoint", util::format_duration(run.checkpoint_s),
             fmt::format("{} ({:.1f} MB); written {}", measured, p.checkpoint_bytes / 1e6, when)});
        return;
    }
    const double bytes = k_checkpoint_size_factor * static_cast<double>(p.gradient_bytes);
    run.checkpoint_s = bytes / k_default_disk_bytes_per_s;
    a.push_back({"checkpoint", util::format_duration(run.checkpoint_s),
                 fmt::format("assumed: {:.1f} MB (parameters and momentum) at {}; written {}",
                             bytes / 1e6, format_bandwidth(k_default_disk_bytes_per_s), when)});
}

void resolve_links(const PlanFlags& flags, const PriceCatalog& prices, Plan& plan) {
    Links& links = plan.input.links;
    const bool gpu = plan.device != "cpu";
    const GpuPrice* node = gpu ? &prices.gpus.at(plan.device) : nullptr;
    const std::string catalog =
        fmt::format("prices: {} ({})", prices.file, gpu ? node->node : std::string("cpu"));
    std::optional<double> measured;
    if (plan.multi_rank) {
        measured = plan.multi_rank->allreduce_bandwidth_bytes_per_s;
    }
    const Pick intra = first_of({
        {flags.intra_node_bytes_per_s, "flag: --intra-node-network"},
        {measured, plan.multi_rank
                       ? fmt::format("measured: {} at world size {}", plan.multi_rank->source,
                                     plan.multi_rank->world_size)
                       : std::string()},
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
    const Pick rendezvous = rendezvous_time(plan);
    links.rendezvous_s = rendezvous.value;
    const Pick per_node = replicas_per_node(flags, node, plan);
    links.replicas_per_node = static_cast<int>(per_node.value);
    const Pick startup = startup_overhead(flags, plan.profile);
    plan.input.startup_s = startup.value;
    // What the range leaves alone: all of a given --overhead, else all but the process start
    // the profile measured.
    plan.input.unmeasured_s =
        flags.startup_s ? startup.value
                        : std::max(0.0, startup.value - std::max(0.0, plan.profile.startup_s));
    auto& a = plan.assumptions;
    a.push_back({"intra-node bandwidth", format_bandwidth(intra.value), intra.source});
    a.push_back({"inter-node bandwidth", format_bandwidth(inter.value), inter.source});
    a.push_back({"latency per hop", fmt::format("{:g}us", latency.value * 1e6), latency.source});
    a.push_back({"rendezvous", util::format_duration(links.rendezvous_s), rendezvous.source});
    a.push_back({"replicas per node",
                 links.replicas_per_node > 0 ? std::to_string(links.replicas_per_node) : "all",
                 per_node.source});
    a.push_back({"start-up overhead", util::format_duration(startup.value), startup.source});
}

util::Status resolve_device(const JobFacts& job, const PlanFlags& flags, const PriceCatalog& prices,
                            Plan& plan) {
    if (flags.gpu.empty()) {
        if (job.gpus > 0) {
            return util::error(fmt::format(
                "--gpu: the job asks for {} GPU(s) per replica; name their type to estimate "
                "it (one of {}) (got nothing)",
                job.gpus, gpu_type_names(prices)));
        }
        plan.device = "cpu";
        return util::ok_status();
    }
    const auto gpu = find_gpu_type(prices, flags.gpu);
    if (!gpu) {
        return gpu.error_value();
    }
    plan.device = flags.gpu;
    plan.gpus_per_replica = std::max(job.gpus, 1);
    if (job.gpus == 0) {
        plan.assumptions.push_back(
            {"GPUs per replica", "1", "assumed: --gpu given and resources.gpus is 0"});
    }
    if (plan.gpus_per_replica > gpu->gpus_per_node) {
        return util::error(
            fmt::format("resources.gpus: a replica must fit one {} node of {} GPUs (got {})",
                        gpu->node, gpu->gpus_per_node, plan.gpus_per_replica));
    }
    return util::ok_status();
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
