#include "cli/verbs/estimate_cmd.h"

#include <fmt/format.h>

#include <algorithm>
#include <memory>
#include <sstream>

#include "backend/select.h"
#include "cli/flags.h"
#include "cli/job_flags.h"
#include "cli/verb.h"
#include "cost/estimate_inputs.h"
#include "cost/measure_cost.h"
#include "cost/measured_use.h"
#include "cost/saved_profile.h"
#include "estimate/format.h"
#include "estimate/program/sizing.h"
#include "estimate/units.h"
#include "job/exit_codes.h"
#include "load/collect.h"
#include "manifest/load.h"
#include "manifest/trial_parameters.h"
#include "manifest/write.h"
#include "util/time_text.h"

namespace kftrain::cli {
namespace {

constexpr const char* k_estimate_examples =
    "Examples:\n"
    "  # Speedup and cost at 1 to 16 replicas, from a profile measured by the trainer\n"
    "  kftrain-trainer --model mnist-cnn --benchmark 20 --profile-out profile.json\n"
    "  kftrain estimate -f examples/mnist-ddp.yaml --profile profile.json --workers 1,2,4,8,16\n"
    "  # On A100 nodes with a 100 Gbps network, as JSON (or -o yaml)\n"
    "  kftrain estimate -f job.yaml --profile profile.json --gpu a100 --network 100Gbps -o json\n"
    "  # The cheapest size that finishes within two hours\n"
    "  kftrain estimate -f job.yaml --profile profile.json --deadline 2h\n"
    "  # The fastest size within $50\n"
    "  kftrain estimate -f job.yaml --profile profile.json --budget 50\n"
    "  # With a profile measured at 2 ranks too: 2 replicas use its measured step\n"
    "  kftrain estimate -f job.yaml --profile profile.json --profile profile-2ranks.json\n"
    "  # Three profiles of one size, on a machine whose speed varies: each figure's median\n"
    "  kftrain estimate -f job.yaml --profile p1.json --profile p2.json --profile p3.json\n"
    "  # Your own program: run it here at 1 and 2 replicas for up to a minute each, then predict\n"
    "  kftrain estimate -f examples/python-ddp/pytorchjob.yaml --measure\n"
    "  # Measured where it will run: on the cluster, at most $5 for the measurement\n"
    "  kftrain estimate -f job.yaml --measure --on-cluster --measure-replicas 1,2,4 --max-cost 5\n"
    "  kftrain estimate -f job.yaml --measure --measure-replicas 1,2,4 --measure-seconds 30s \\\n"
    "      --profile-out ddp-profile.json\n\n"
    "For kftrain-trainer without --profile, a built-in profile computed from the model's FLOPs\n"
    "and an assumed device speed is used, and the output says so. A job that runs its own\n"
    "program needs a measured profile: --measure, or --profile FILE that --measure wrote (the\n"
    "last one measured for the job as it is now is reused). Every default is printed under\n"
    "the table.";

// Parse a replica count: a whole number from 1 to 100000.
std::optional<int> parse_count(const std::string& text) {
    char* end = nullptr;
    const long value = std::strtol(text.c_str(), &end, 10);
    if (text.empty() || *end != '\0' || value < 1 || value > 100000) {
        return std::nullopt;
    }
    return static_cast<int>(value);
}

util::Result<std::vector<int>> parse_workers(const std::string& text,
                                             const char* flag = "--workers", int most = 100000) {
    std::vector<int> workers;
    std::stringstream in(text);
    std::string item;
    while (std::getline(in, item, ',')) {
        const auto count = parse_count(item);
        if (!count || *count > most) {
            return util::error(fmt::format(
                "{}: must be a comma-separated list of replica counts from 1 to {} (got {})", flag,
                most, text));
        }
        workers.push_back(*count);
    }
    if (workers.empty()) {
        return util::error(
            fmt::format("{}: must name at least one replica count (got \"{}\")", flag, text));
    }
    return workers;
}

// The most replicas --measure starts on this machine at once, and the time it runs each:
// a second to a day.
constexpr int k_most_measured_replicas = 64;
constexpr int k_most_cluster_replicas = 1024;  // with --on-cluster
// A flag named in seconds takes a bare whole number as seconds ("30" is 30s), as well as every
// duration ("2m").
constexpr util::DurationRule k_measure_seconds{1, 24 * 3600, "from 1s to 24h", true};
// --start-timeout: the same range, and like every duration flag not named in a unit, a unit.
constexpr util::DurationRule k_start_timeout{1, 24 * 3600, "from 1s to 24h"};

// Parse an optional duration flag by its rule; unset when not given.
util::Result<std::optional<double>> optional_duration(const std::string& flag,
                                                      const std::optional<std::string>& text,
                                                      const util::DurationRule& rule) {
    if (!text) {
        return std::optional<double>();
    }
    auto seconds = util::parse_duration_flag(flag, *text, rule);
    if (!seconds) {
        return seconds.error_value();
    }
    return std::optional<double>(*seconds);
}

// Parse an optional flag with parse; unset when the text is empty.
template <typename Parse>
util::Result<std::optional<double>> optional_flag(const std::string& flag, const std::string& text,
                                                  Parse parse, const char* expected) {
    if (text.empty()) {
        return std::optional<double>();
    }
    const auto value = parse(text);
    if (!value) {
        return util::error(fmt::format("{}: must be {} (got {})", flag, expected, text));
    }
    return std::optional<double>(*value);
}

util::Status parse_goal(const EstimateOptions& o, EstimateRequest& r) {
    if (o.deadline && !o.budget.empty()) {
        return util::error(
            fmt::format("--budget: give --deadline or --budget, not both (got {})", o.budget));
    }
    auto deadline = optional_duration("--deadline", o.deadline, util::k_positive_duration);
    auto budget =
        optional_flag("--budget", o.budget, estimate::parse_money, "an amount such as 50 or 12.50");
    for (const auto* parsed : {&deadline, &budget}) {
        if (!parsed->ok()) {
            return util::error(parsed->error());
        }
    }
    if (deadline.value()) {
        r.goal = estimate::Goal{estimate::Goal::Kind::deadline, **deadline};
    } else if (budget.value()) {
        r.goal = estimate::Goal{estimate::Goal::Kind::budget, **budget};
    }
    return util::ok_status();
}

// The flag that set the goal, for messages.
struct GoalFlag {
    const char* name;
    std::string value;
};

// Parse the flags of estimate; errors name the flag and the value.
util::Result<EstimateRequest> parse_request(const EstimateOptions& o) {
    EstimateRequest r;
    estimate::PlanFlags& f = r.flags;
    if (!o.workers.empty()) {
        auto workers = parse_workers(o.workers);
        if (!workers) {
            return util::error(workers.error());
        }
        f.workers = *workers;
    }
    f.gpu = o.gpu;
    auto network = optional_flag("--network", o.network, estimate::parse_bandwidth,
                                 "a bandwidth such as 100Gbps or 10GB/s");
    auto intra = optional_flag("--intra-node-network", o.intra_node_network,
                               estimate::parse_bandwidth, "a bandwidth such as 600GB/s or 100Gbps");
    auto latency = optional_flag("--latency", o.latency, estimate::parse_latency,
                                 "a time such as 30us or 0.5ms");
    auto overhead = optional_duration("--overhead", o.overhead, util::k_any_duration);
    auto per_node = optional_flag("--replicas-per-node", o.replicas_per_node, parse_count,
                                  "a whole number >= 1");
    for (const auto* parsed : {&network, &intra, &latency, &overhead, &per_node}) {
        if (!parsed->ok()) {
            return util::error(parsed->error());
        }
    }
    f.network_bytes_per_s = *network;
    f.intra_node_bytes_per_s = *intra;
    f.latency_s = *latency;
    f.startup_s = *overhead;
    if (per_node.value()) {
        f.replicas_per_node = static_cast<int>(**per_node);
    }
    if (auto goal = parse_goal(o, r); !goal) {
        return util::error(goal.error());
    }
    return r;
}

void add_measure_flags(CLI::App& sub, EstimateOptions& o) {
    sub.add_flag("--measure", o.measure,
                 "Run the job's own command here (local backend) at each --measure-replicas for "
                 "up to --measure-seconds, read its progress and predict from what it did; the "
                 "profile is saved for later estimates and submit --max-cost");
    sub.add_option("--measure-replicas", o.measure_replicas,
                   "With --measure: replica counts to run it at, e.g. 1,2,4 (default: 1,2)");
    sub.add_option("--measure-seconds", o.measure_seconds,
                   duration_help("With --measure: the longest each size runs; 1s to 24h "
                                 "(default: 60s); also whole seconds (30)"));
    sub.add_option("--profile-out", o.profile_out,
                   "With --measure: also write the measured profile to this file");
    sub.add_flag("--on-cluster", o.on_cluster,
                 "With --measure: run it on the cluster instead, as short jobs <job>-measure-<R> "
                 "in the job's namespace and queue, priced first (needs --yes or --max-cost); "
                 "every job it starts is deleted");
    sub.add_flag("--measure-parallel", o.measure_parallel,
                 "With --on-cluster: run the sizes side by side (default: one after another)");
    sub.add_flag("--print-job-file", o.print_job_file,
                 "Print the job file with its resources set to what the program was measured "
                 "to use (memory: peak +20%; cpu: cores used) instead of the estimate");
    sub.add_flag("--yes", o.yes, "With --on-cluster: go ahead at the cost it prints");
    sub.add_option("--max-cost", o.max_cost,
                   "With --on-cluster: go ahead only when the measurement costs at most this "
                   "many dollars, e.g. 5");
    sub.add_option("--start-timeout", o.start_timeout,
                   duration_help("With --on-cluster: how long a size's pods may take to start "
                                 "(queued, scheduled, pulling images) before it fails "
                                 "(default: 10m)"));
}

}  // namespace

void setup_estimate(CLI::App& app, Context& ctx) {
    auto o = std::make_shared<EstimateOptions>();
    auto* sub = app.add_subcommand(
        "estimate", "Estimate time, speedup and cost of a job over numbers of replicas");
    sub->footer(k_estimate_examples);
    add_job_file_flags(*sub, o->job);
    sub->add_option("--profile", o->profiles,
                    "Profile measured by `kftrain-trainer --benchmark STEPS --profile-out FILE`; "
                    "repeat it with profiles at other world sizes, each size measured uses its "
                    "own step, and with repeats at one size, whose median figures are used "
                    "(default: a built-in profile computed from the model's FLOPs)")
        ->allow_extra_args(false);
    sub->add_option("--workers", o->workers,
                    "Replica counts to compare, e.g. 1,2,4,8,16 (default: those and the job "
                    "file's replicas)");
    sub->add_option("--gpu", o->gpu,
                    "GPU type to price and, without --profile, to time (a100, h100, l4, t4, "
                    "v100 or one in --prices); needed when resources.gpus > 0");
    sub->add_option("--network", o->network,
                    "Bandwidth between nodes, e.g. 100Gbps (default: the GPU type's in the "
                    "prices, else 10Gbps)");
    sub->add_option("--intra-node-network", o->intra_node_network,
                    "Bandwidth between replicas of one node, e.g. 600GB/s (default: measured "
                    "by a profile at 2+ replicas, else the prices', else a default)");
    sub->add_option("--latency", o->latency, "Latency of one all-reduce hop (default: 30us)");
    sub->add_option("--replicas-per-node", o->replicas_per_node,
                    "Replicas that share a node (default: GPUs per node / GPUs per replica; "
                    "1 for CPU replicas; all with --local)");
    sub->add_option("--overhead", o->overhead,
                    duration_help("Start-up time of the job: scheduling, image pull, "
                                  "rendezvous (default: 60s; 5s with --local)"));
    sub->add_option("--prices", o->prices,
                    "Price catalog (default: $KFTRAIN_PRICES, else the built-in "
                    "examples/prices.yaml)");
    sub->add_option("--deadline", o->deadline,
                    duration_help("Choose the cheapest size that finishes within this time"));
    sub->add_option("--budget", o->budget,
                    "Choose the fastest size that costs at most this many dollars, e.g. 50");
    add_measure_flags(*sub, *o);
    sub->add_option("-o,--output", o->output, view::output_flag_help(view::k_table_formats));
    run_when_parsed(*sub, o, ctx);
}

util::Status EstimateOptions::complete(const Context& ctx) {
    auto loaded = load::load_job(job, ctx.global);
    if (!loaded) {
        return loaded.error_value();
    }
    spec = std::move(*loaded);
    runs_here = job::asks_local(ctx.global, spec.backend);
    if (measure) {  // the code it ships is measured in a copy, as a local submit runs it
        auto read = load::read_job_code(spec, job, ctx.err);
        if (!read) {
            return read.error_value();
        }
        code = std::move(*read);
    }
    return util::ok_status();
}

util::Status EstimateOptions::validate() {
    auto parsed = parse_request(*this);
    if (!parsed) {
        return parsed.error_value();
    }
    request = std::move(*parsed);
    if (auto measured = validate_measure(); !measured) {
        return measured;
    }
    for (const auto& profile : profiles) {
        if (auto refused = load::refuse_stdin("--profile", profile); !refused) {
            return refused;
        }
    }
    if (auto refused = load::refuse_stdin("--prices", prices); !refused) {
        return refused;
    }
    auto chosen = view::parse_output_format(output, view::k_table_formats);
    if (!chosen) {
        return chosen.error_value();
    }
    format = *chosen;
    return util::ok_status();
}

util::Status EstimateOptions::validate_measure() {
    if (!measure) {
        for (const auto& [flag, value] : {std::pair{"--measure-replicas", &measure_replicas},
                                          {"--measure-seconds", &measure_seconds},
                                          {"--profile-out", &profile_out}}) {
            if (*value) {
                return util::error(fmt::format("{}: needs --measure (got {})", flag, **value));
            }
        }
    }
    if (auto cluster = validate_on_cluster(); !cluster || !measure) {
        return cluster;
    }
    if (!profiles.empty()) {
        return util::error(
            fmt::format("--profile: --measure makes the profile; give one or the other (got {})",
                        profiles.front()));
    }
    // --measure runs the job as submit does: every placeholder needs its value.
    if (auto filled = manifest::require_no_placeholders(spec); !filled) {
        return filled;
    }
    if (measure_replicas) {
        auto sizes = parse_workers(*measure_replicas, "--measure-replicas",
                                   on_cluster ? k_most_cluster_replicas : k_most_measured_replicas);
        if (!sizes) {
            return sizes.error_value();
        }
        std::sort(sizes->begin(), sizes->end());
        sizes->erase(std::unique(sizes->begin(), sizes->end()), sizes->end());
        measure_sizes = *sizes;
    }
    if (measure_seconds) {
        auto seconds =
            util::parse_duration_flag("--measure-seconds", *measure_seconds, k_measure_seconds);
        if (!seconds) {
            return seconds.error_value();
        }
        measure_limit_s = *seconds;
    }
    if (profile_out) {
        if (profile_out->empty()) {
            return util::error("--profile-out: must name a file (got \"\")");
        }
        if (auto refused = load::refuse_stdin("--profile-out", *profile_out); !refused) {
            return refused;
        }
        // Checked before a measurement of minutes, not after it.
        if (auto checked = cost::check_profile_out(*profile_out); !checked) {
            return checked;
        }
    }
    return cost::check_measure_jobs(spec, measure_sizes);
}

util::Status EstimateOptions::validate_on_cluster() {
    if (!on_cluster) {
        for (const auto& [flag, given] : {std::pair{"--measure-parallel", measure_parallel},
                                          {"--yes", yes},
                                          {"--max-cost", max_cost.has_value()},
                                          {"--start-timeout", start_timeout.has_value()}}) {
            if (given) {
                return util::error(fmt::format("{}: needs --measure --on-cluster", flag));
            }
        }
        return util::ok_status();
    }
    if (!measure) {
        return util::error("--on-cluster: needs --measure (it says where to measure)");
    }
    if (runs_here) {
        return util::error(
            fmt::format("--on-cluster: job {} runs on this machine (--local or backend: local); "
                        "drop --on-cluster to measure it here",
                        spec.name));
    }
    auto cost = optional_flag("--max-cost", max_cost.value_or(""), estimate::parse_money,
                              "an amount such as 5 or 12.50");
    auto timeout = optional_duration("--start-timeout", start_timeout, k_start_timeout);
    for (const auto* parsed : {&cost, &timeout}) {
        if (!parsed->ok()) {
            return util::error(parsed->error());
        }
    }
    max_cost_amount = cost.value();
    start_timeout_s = timeout.value().value_or(start_timeout_s);
    return util::ok_status();
}

util::Result<std::string> EstimateOptions::run_measurement(Context& ctx) const {
    cost::MeasureRequest asked{spec, measure_sizes,    measure_limit_s, profile_out.value_or(""),
                               code, measure_parallel, start_timeout_s};
    if (on_cluster) {
        auto pricing = cost::load_pricing(prices, gpu);
        if (!pricing) {
            return util::error(pricing.error(), k_exit_bad_input);
        }
        const cost::MeasureCost cost = cost::measurement_cost(asked, *pricing);
        ctx.err << cost::measurement_cost_text(asked, cost);
        if (auto approved =
                cost::approve_measurement(cost, yes, max_cost_amount, max_cost.value_or(""));
            !approved) {
            return approved.error_value();
        }
    }
    auto measured = backend::measure(ctx.global, asked, on_cluster, ctx.err);
    if (!measured) {
        return measured.error_value();
    }
    ctx.err << fmt::format("profile saved: {}", measured->source) << std::endl;
    return measured->source;
}

int EstimateOptions::print_sized_job_file(Context& ctx, const estimate::Report& report) const {
    auto sizing = report.program ? estimate::recommend_sizing(report.program->sizes) : std::nullopt;
    if (!sizing) {
        return report_error(ctx,
                            "--print-job-file: no measured memory for " + spec.name +
                                ": measure it with --measure (a trainer's --profile has none)",
                            k_exit_bad_input);
    }
    for (const std::string& warning : sizing->warnings) {
        ctx.err << "kftrain: warning: " << warning << "\n";
    }
    manifest::JobSpec sized = cost::with_sizing(spec, *sizing);
    if (!sized.code.path.empty()) {  // the file works from wherever it is saved
        sized.code.path = load::absolute_folder(
            load::code_folder(spec, job.file == "-" || job.job_yaml.has_value()));
    }
    ctx.out << manifest::write_job_file(sized);
    return k_exit_ok;
}

int EstimateOptions::run(Context& ctx) const {
    estimate::PlanFlags flags = request.flags;
    flags.local = runs_here;
    const bool deadline_goal = request.goal && request.goal->kind == estimate::Goal::Kind::deadline;
    const GoalFlag goal_flag = deadline_goal ? GoalFlag{"--deadline", deadline.value_or("")}
                                             : GoalFlag{"--budget", budget};
    std::vector<std::string> sources = profiles;
    if (measure) {
        auto measured = run_measurement(ctx);
        if (!measured) {
            return report_error(ctx, measured.error(), measured.error_code(k_exit_bad_input));
        }
        sources = {*measured};
    }
    auto report = cost::build_report(spec, flags, request.goal, {sources, prices}, goal_flag.name);
    if (!report) {
        return report_error(ctx, report.error(), k_exit_bad_input);
    }
    if (print_job_file) {
        return print_sized_job_file(ctx, *report);
    }
    if (format == view::OutputFormat::Table) {
        ctx.out << estimate::format_table(*report);
    } else {
        view::print_data(ctx.out, estimate::report_to_json(*report), format);
    }
    if (report->goal && !report->choice) {
        return report_error(ctx,
                            fmt::format("{}: {} (got {})", goal_flag.name,
                                        estimate::unmet_goal_message(*report), goal_flag.value),
                            k_exit_bad_input);
    }
    return k_exit_ok;
}

}  // namespace kftrain::cli
