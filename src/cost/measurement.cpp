#include "cost/measurement.h"

#include <fmt/format.h>

#include <filesystem>
#include <thread>

#include "cost/estimate_inputs.h"
#include "cost/saved_profile.h"
#include "job/exit_codes.h"
#include "manifest/job_kind.h"
#include "manifest/render/render.h"
#include "manifest/validate.h"
#include "state/state_files.h"
#include "util/files.h"
#include "util/process_info.h"
#include "util/redact.h"
#include "util/text.h"
#include "util/time_text.h"

namespace kftrain::cost {
namespace {

namespace fs = std::filesystem;

std::string command_line(const manifest::JobSpec& spec) {
    std::vector<std::string> words = spec.command;
    if (words.empty()) {
        words.push_back("kftrain-trainer");
    }
    if (spec.args) {
        words.insert(words.end(), spec.args->begin(), spec.args->end());
    }
    return util::mask_secrets(fmt::format("{}", fmt::join(words, " ")));
}

}  // namespace

manifest::JobSpec measurement_job(const manifest::JobSpec& job, int replicas) {
    manifest::JobSpec m = job;
    m.name = fmt::format("{}-measure-{}", job.name, replicas);
    m.replicas = replicas;
    m.restart_policy = "Never";
    m.elastic_policy.reset();
    return m;
}

util::Status check_measure_jobs(const manifest::JobSpec& spec, const std::vector<int>& sizes) {
    for (int replicas : sizes) {
        const std::string name = measurement_job(spec, replicas).name;
        if (!state::check_job_name(name)) {
            const size_t suffix = name.size() - spec.name.size();
            return util::error(
                fmt::format("--measure: at {} the job runs as {}, longer than the 63 characters "
                            "a job name may have: shorten its name to at most {} characters",
                            util::counted(replicas, "replica"), name,
                            suffix < 63 ? 63 - suffix : 0),
                k_exit_bad_input);
        }
    }
    // Each replica's Service (or a TrainJob node's host) is named after the job: a DNS-1035
    // label too, checked before any size runs rather than when one is rendered.
    for (int replicas : sizes) {
        const manifest::JobSpec measured = measurement_job(spec, replicas);
        const std::string host = manifest::longest_host_name(measured);
        if (host.size() > 63) {
            const size_t over = host.size() - 63;
            return util::error(
                fmt::format("--measure: at {} the job runs as {}, whose replica {} is longer "
                            "than the 63 characters of a service name: shorten its name to at "
                            "most {} characters",
                            util::counted(replicas, "replica"), measured.name, host,
                            spec.name.size() > over ? spec.name.size() - over : 0),
                k_exit_bad_input);
        }
    }
    return util::ok_status();
}

util::Result<job::RenderedJob> render_measurement(manifest::JobSpec spec,
                                                  const std::optional<manifest::CodeBundle>& code) {
    if (code) {
        manifest::attach_code(spec, *code, {spec.name, manifest::CodeOwnerKind::job});
    }
    auto tmpl = load::job_template({}, spec.kind);
    if (!tmpl) {
        return tmpl.error_value();
    }
    auto manifest = manifest::render_job(spec, *tmpl);
    if (!manifest) {
        return util::error(manifest.error(), k_exit_bad_input);
    }
    job::RenderedJob job{spec, *manifest, code, YAML::Node()};
    if (code) {
        job.code_config_map = manifest::code_config_map(
            job.spec, *code, {job.spec.name, manifest::CodeOwnerKind::job});
    }
    return job;
}

std::optional<estimate::ProgressPoint> progress_point(const job::Progress& p, double t) {
    estimate::ProgressPoint point;
    point.t = t;
    point.samples_per_sec = p.samples_per_sec;
    const auto& spe = p.steps_per_epoch;
    long long per_run = 0;
    if (spe && *spe > 0 && p.epochs && *p.epochs > 0 &&
        !__builtin_mul_overflow(*spe, static_cast<long long>(*p.epochs), &per_run)) {
        point.steps_per_epoch = *spe;
        point.steps_per_run = per_run;  // counts past a long long are no real run's
    }
    if (p.event == "finish") {
        point.fraction = 1;
        point.basis = point.steps_per_run ? "steps" : "percent";
        return point;
    }
    if (point.steps_per_run && (p.global_step || (p.epoch && p.step))) {
        // In doubles: a line's epoch and step are the program's, whatever their size or sign.
        const double done = p.global_step
                                ? static_cast<double>(*p.global_step)
                                : (static_cast<double>(*p.epoch) - 1) * static_cast<double>(*spe) +
                                      static_cast<double>(*p.step);
        point.fraction = done / static_cast<double>(*point.steps_per_run);
        point.basis = "steps";
        return point;
    }
    if (p.percent) {
        point.fraction = *p.percent / 100;
        point.basis = "percent";
        return point;
    }
    if (p.event == "epoch" && p.epoch && p.epochs && *p.epochs > 0) {
        point.fraction = static_cast<double>(*p.epoch) / *p.epochs;
        point.basis = "epochs";
        return point;
    }
    return std::nullopt;
}

double extended_limit(double limit_s) {
    return std::max(4 * limit_s, limit_s + 60);
}

bool keep_measuring(const std::vector<estimate::ProgressPoint>& points, double seconds,
                    double limit_s) {
    if (seconds < limit_s) {
        return true;
    }
    return !points.empty() && !estimate::report_shortage(points).empty() &&
           seconds < extended_limit(limit_s);
}

std::string measuring_longer_note(const std::string& job,
                                  const std::vector<estimate::ProgressPoint>& points,
                                  double limit_s) {
    return fmt::format(
        "measuring {} longer: its reports in {} are too few to measure by ({}); measuring on "
        "until they are enough, for at most {} in all",
        job, util::format_duration(limit_s), estimate::report_shortage(points),
        util::format_duration(extended_limit(limit_s)));
}

estimate::ProgramProfile new_profile(const MeasureRequest& request) {
    estimate::ProgramProfile profile;
    profile.job = request.spec.name;
    profile.program = command_line(request.spec);
    profile.kind = manifest::kind_name(request.spec.kind);
    profile.fingerprint = program_fingerprint(request.spec);
    profile.program_id = program_identity(request.spec);
    profile.measured_at = util::now_timestamp();
    profile.seconds_limit = request.seconds;
    profile.procs_per_replica = job_facts(request.spec).procs_per_replica;
    profile.host_cpus = static_cast<int>(std::thread::hardware_concurrency());
    return profile;
}

util::Error size_failure(const std::string& job, int replicas, const job::JobStatus& failed,
                         const std::string& lead, const std::vector<std::string>& last_lines) {
    std::string lines;
    for (const auto& line : last_lines) {
        lines += "\n  " + lead + " | " + util::escape_controls(util::mask_secrets(line));
    }
    return util::Error{
        fmt::format("{} failed at {} before it could be measured: {}{}{}", job,
                    util::counted(replicas, "replica"),
                    failed.reason.empty() ? "" : util::escape_controls(failed.reason) + ": ",
                    util::escape_controls(failed.message),
                    lines.empty() ? "" : "; its last lines:" + lines),
        k_exit_job_failed};
}

util::Result<estimate::SizeMeasurement> fit_size(const MeasureRequest& request, int replicas,
                                                 const std::vector<estimate::ProgressPoint>& points,
                                                 double seconds, bool finished) {
    const int world = replicas * job_facts(request.spec).procs_per_replica;
    auto measured = estimate::measure_size(points, replicas, world, seconds, finished);
    if (!measured) {
        return util::error(fmt::format("--measure: {} at {}: {}", request.spec.name,
                                       util::counted(replicas, "replica"), measured.error()),
                           k_exit_bad_input);
    }
    return *measured;
}

util::Status save_measured_profile(estimate::ProgramProfile& profile,
                                   const std::string& profile_out) {
    const std::string text = estimate::program_profile_json(profile);
    profile.source = saved_profile_path(profile.job, profile.where.cluster);
    if (auto reread = estimate::parse_program_profile(text, profile.source); !reread) {
        return util::error(fmt::format(
            "--measure: the measured profile is not sound, nothing saved: {}", reread.error()));
    }
    for (const std::string& path : {profile.source, profile_out}) {
        if (path.empty()) {
            continue;
        }
        if (path == profile_out) {
            if (auto free = check_profile_out(path); !free) {  // again: minutes have passed
                return free.error_value();
            }
        } else if (auto made = util::make_private_dir(fs::path(path).parent_path()); !made) {
            return util::error(made.error());
        }
        if (auto written = util::write_file_atomic(path, text); !written) {
            return util::error((path == profile_out ? "--profile-out: " : "") + written.error(),
                               k_exit_bad_input);
        }
    }
    if (!profile_out.empty()) {
        profile.source = profile_out;
    }
    return util::ok_status();
}

}  // namespace kftrain::cost
