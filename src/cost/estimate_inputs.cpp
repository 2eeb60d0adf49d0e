#include "cost/estimate_inputs.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>

#include "cost/saved_profile.h"
#include "estimate/program/model.h"
#include "manifest/k8s/quantity.h"
#include "manifest/load.h"

namespace kftrain::cost {
namespace {

int64_t trainer_int(const manifest::JobSpec& spec, const std::string& key, int64_t fallback) {
    const std::string text = spec.trainer_value(key, "");
    char* end = nullptr;
    const long long value = std::strtoll(text.c_str(), &end, 10);
    return text.empty() || *end != '\0' ? fallback : value;
}

// Return the processes per replica nprocPerNode asks for, as torchrun counts them.
int procs_per_replica(const manifest::JobSpec& spec, double cpu_cores) {
    const std::string& n = spec.nproc_per_node;
    if (n.empty()) {
        return 1;
    }
    if (n == "gpu" || n == "auto") {
        return std::max(spec.resources.gpus, 1);
    }
    if (n == "cpu") {
        return std::max(static_cast<int>(std::floor(cpu_cores)), 1);
    }
    return std::max(std::atoi(n.c_str()), 1);
}

}  // namespace

estimate::JobFacts job_facts(const manifest::JobSpec& spec) {
    estimate::JobFacts j;
    j.name = spec.name;
    j.replicas = spec.replicas;
    j.cpu_cores = manifest::parse_quantity(spec.resources.cpu).value_or(0.0);
    j.memory_bytes = manifest::parse_quantity(spec.resources.memory).value_or(0.0);
    j.gpus = spec.resources.gpus;
    j.procs_per_replica = procs_per_replica(spec, j.cpu_cores);
    j.model = spec.trainer_value("model", "mnist-cnn");
    j.dataset = spec.trainer_value("dataset", "synthetic");
    j.batch_size = static_cast<int>(trainer_int(spec, "batchSize", 64));
    j.epochs = static_cast<int>(trainer_int(spec, "epochs", 1));
    j.samples = trainer_int(spec, "samples", 0);
    j.checkpoints = !spec.trainer_value("checkpointDir", "").empty();
    j.checkpoint_every = trainer_int(spec, "checkpointEvery", 0);
    j.grad_compression = spec.trainer_value("gradCompression", "none");
    return j;
}

util::Result<estimate::PriceCatalog> load_prices(const std::string& prices_flag) {
    const char* env = std::getenv("KFTRAIN_PRICES");
    const std::string origin = !prices_flag.empty() ? "--prices" : "KFTRAIN_PRICES";
    const std::string path = !prices_flag.empty() ? prices_flag : (env != nullptr ? env : "");
    if (path.empty()) {
        return estimate::parse_prices(estimate::default_prices_yaml(), "built-in prices");
    }
    auto text = manifest::read_file(path);
    if (!text) {
        return util::error(origin + ": " + text.error());
    }
    return estimate::parse_prices(*text, path);
}

util::Result<Pricing> load_pricing(const std::string& prices_flag, const std::string& gpu_flag) {
    auto catalog = load_prices(prices_flag);
    if (!catalog) {
        return catalog.error_value();
    }
    if (!gpu_flag.empty()) {
        if (auto gpu = estimate::find_gpu_type(*catalog, gpu_flag); !gpu) {
            return gpu.error_value();
        }
    }
    return Pricing{*catalog, gpu_flag};
}

util::Result<LoadedProfiles> load_profile_files(const std::vector<std::string>& paths) {
    LoadedProfiles loaded;
    for (const auto& path : paths) {
        auto text = manifest::read_file(path);
        if (!text) {
            return util::error("--profile: " + text.error());
        }
        if (estimate::is_program_profile(*text)) {
            if (loaded.program) {
                return util::error(fmt::format(
                    "--profile: give one profile measured by estimate --measure; it holds every "
                    "size measured (got {} and {})",
                    loaded.program->source, path));
            }
            auto program = estimate::parse_program_profile(*text, path);
            if (!program) {
                return util::error("--profile: " + program.error());
            }
            loaded.program = std::move(*program);
            continue;
        }
        auto profile = estimate::parse_profile(*text, path);
        if (!profile) {
            return util::error(profile.error());
        }
        loaded.trainer.push_back(std::move(*profile));
    }
    if (loaded.program && !loaded.trainer.empty()) {
        return util::error(fmt::format(
            "--profile: {} was measured from a program and {} by kftrain-trainer --benchmark; "
            "give one kind (got both)",
            loaded.program->source, loaded.trainer.front().source));
    }
    return loaded;
}

namespace {

// Say why a job that runs its own program has no estimate yet, and how to get one.
std::string unmeasured_message(const manifest::JobSpec& spec, const std::string& flag) {
    return fmt::format(
        "{}: job {} runs its own program ({}), which kftrain's built-in profiles do not "
        "describe; measure it: kftrain estimate -f FILE --measure (it runs the job here for a "
        "minute at 1 and 2 replicas), or give a profile it measured: --profile FILE",
        flag, spec.name, spec.command.front());
}

}  // namespace

util::Result<estimate::Report> build_report(const manifest::JobSpec& spec,
                                            const estimate::PlanFlags& flags,
                                            const std::optional<estimate::Goal>& goal,
                                            const EstimateSources& sources,
                                            const std::string& goal_flag) {
    auto prices = load_prices(sources.prices);
    if (!prices) {
        return util::error(prices.error());
    }
    auto profiles = load_profile_files(sources.profiles);
    if (!profiles) {
        return util::error(profiles.error());
    }
    if (!profiles->program && profiles->trainer.empty()) {
        profiles->program = read_saved_profile(spec, !flags.local);
    }
    if (!profiles->program && !spec.runs_trainer()) {
        if (!profiles->trainer.empty()) {
            return util::error(fmt::format(
                "--profile: {} was measured by kftrain-trainer --benchmark, but job {} runs its "
                "own program ({}); measure it with --measure",
                profiles->trainer.front().source, spec.name, spec.command.front()));
        }
        return util::error(unmeasured_message(spec, goal ? goal_flag : "--profile"));
    }
    util::Result<estimate::Report> report =
        profiles->program
            ? estimate::program_report(*profiles->program, job_facts(spec), flags, *prices, goal)
            : [&]() -> util::Result<estimate::Report> {
        auto plan = estimate::make_plan(job_facts(spec), flags, profiles->trainer, *prices);
        if (!plan) {
            return util::error(plan.error());
        }
        return estimate::make_report(spec.name, *plan, goal);
    }();
    if (!report) {
        return report;
    }
    if (goal && !report->plan.input.price_per_replica_hour) {
        return util::error(fmt::format("{}: {} has no price for {} replicas to choose by",
                                       goal_flag, prices->file, report->plan.device));
    }
    return report;
}

}  // namespace kftrain::cost
