#include "backend/local/measure/program_measure.h"

#include <fmt/format.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <thread>

#include "backend/local/local_backend.h"
#include "backend/local/process/replica_env.h"
#include "backend/local/state/log_store.h"
#include "backend/local/state/state_dir.h"
#include "cost/estimate_inputs.h"
#include "cost/measured_use.h"
#include "cost/saved_profile.h"
#include "job/exit_codes.h"
#include "load/job_input.h"
#include "manifest/code.h"
#include "manifest/job_kind.h"
#include "manifest/render/render.h"
#include "progress/progress_reader.h"
#include "util/process_info.h"
#include "util/redact.h"
#include "util/signals/interrupt.h"
#include "util/text.h"
#include "util/time_text.h"

namespace kftrain::backend::local {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

constexpr auto k_size_poll = std::chrono::milliseconds(200);
constexpr auto k_post_poll = std::chrono::seconds(1);

// How far a program's own report times may stray outside the measurement (a timestamp taken
// before a line is flushed, a rounded clock) and still be its times.
constexpr double k_clock_slack_s = 2;

double wall_now() {
    return static_cast<double>(util::now_nanoseconds()) / 1e9;
}

// The job as it runs at one size here: nothing queued, and every writable volume an empty
// directory of its own under scratch.
manifest::JobSpec sized_job(const manifest::JobSpec& job, int replicas,
                            const std::string& scratch) {
    manifest::JobSpec m = cost::measurement_job(job, replicas);
    m.backend = "local";
    m.queue.clear();
    m.queue_priority_class.clear();
    for (auto& volume : m.volumes) {
        if (!volume.read_only && volume.config_map.empty()) {
            volume.local_path = scratch + "/" + std::to_string(replicas) + "/" + volume.name;
        }
    }
    return m;
}

// Return the replica whose rank 0 prints the progress lines.
std::string lead_name(const manifest::JobSpec& spec) {
    return backend::local::replica_refs(spec)
        .front()
        .name;  // the Master, Chief, Worker 0 or node-0
}

// What one size's run showed.
struct SizeRun {
    std::vector<estimate::ProgressPoint> lines;  // from its progress lines
    std::vector<estimate::ProgressPoint> posts;  // from its trainerStatus posts
    // Return the reports to measure by: the lines, unless the posts said more.
    const std::vector<estimate::ProgressPoint>& points() const {
        return posts.size() > lines.size() ? posts : lines;
    }
    double seconds = 0;
    bool finished = false;
    std::optional<job::JobStatus> failed;
    std::vector<std::string> last_lines;    // of the lead replica, for a failure's message
    std::vector<estimate::ReplicaUse> use;  // what each replica used
};

constexpr std::size_t k_lines_kept = 8;

// Run one size until it ends, the time is up or a signal comes; stop and delete it.
// Watches one size's job while it runs: the lead replica's new lines, and what was posted.
class SizeWatch {
  public:
    SizeWatch(backend::local::LocalBackend& jobs, const manifest::JobSpec& spec, double started)
        : m_jobs(jobs),
          m_name(spec.name),
          m_started(started),
          m_lead(lead_name(spec)),
          m_log(backend::local::combined_log_path(spec.name)) {}

    // Read the lines the lead replica printed since the last look.
    void take_lines() {
        for (const backend::local::LogRecord& record : m_log.next()) {
            if (record.replica != m_lead) {
                continue;
            }
            const std::string& line = record.text;
            m_run.last_lines.push_back(line);
            if (m_run.last_lines.size() > k_lines_kept) {
                m_run.last_lines.erase(m_run.last_lines.begin());
            }
            // Text gives no time of its own: it is timed by its line in the log.
            const double seen = since_start(record.time);
            m_progress.take_output(line, seen);
            if (const auto& progress = m_progress.progress(); m_progress.changed() && progress) {
                const double t = progress->source.empty() ? since_start(progress->time) : seen;
                add(m_run.lines, cost::progress_point(*progress, t));
            }
        }
    }

    // Read what the program last posted (trainerStatus), when it is new.
    void take_post() {
        auto posted = m_jobs.posted_progress(m_name);
        if (posted && posted->percent && posted->time != m_last_post) {
            m_last_post = posted->time;
            job::Progress percent_only;
            percent_only.percent = posted->percent;
            add(m_run.posts, cost::progress_point(percent_only, since_start(posted->time)));
        }
    }

    // Return whether the job has ended, noting how.
    bool ended() {
        auto status = m_jobs.status(m_name);
        if (!status || !job::is_finished(status->phase)) {
            return false;
        }
        do {
            take_lines();
        } while (!m_log.caught_up());
        m_run.finished = status->phase == job::JobPhase::Succeeded;
        if (!m_run.finished) {
            m_run.failed = *status;
        }
        return true;
    }

    SizeRun& run() { return m_run; }

  private:
    // Return when a report was made, in seconds since the job started: the time it gives when
    // that falls within the measurement (the machine's clock, as ours), else now.
    double since_start(const std::string& time) const {
        const double now = wall_now();
        const auto when = util::parse_timestamp_seconds(time);
        const bool believable =
            when && *when >= m_started - k_clock_slack_s && *when <= now + k_clock_slack_s;
        return std::max(0.0, (believable ? *when : now) - m_started);
    }

    static void add(std::vector<estimate::ProgressPoint>& to,
                    const std::optional<estimate::ProgressPoint>& point) {
        if (point) {
            to.push_back(*point);
        }
    }

    backend::local::LocalBackend& m_jobs;
    std::string m_name;
    double m_started;
    std::string m_lead;
    backend::local::LogCursor m_log;
    SizeRun m_run;
    std::string m_last_post;
    progress::ProgressReader m_progress;  // of the lead's output
};

// Start one size's job: an earlier one of its name that has ended is deleted first. The code
// it ships, if any, is copied into its state directory as submit copies it.
util::Status start_size(backend::local::LocalBackend& jobs, manifest::JobSpec spec,
                        const std::optional<manifest::CodeBundle>& code) {
    if (auto existing = jobs.status(spec.name); existing) {
        if (!job::is_finished(existing->phase)) {
            return util::error(
                fmt::format("job {} is running here (an earlier measurement?): delete it with "
                            "kftrain delete {} --local",
                            spec.name, spec.name),
                k_exit_bad_input);
        }
        jobs.remove(spec.name, true);
    }
    auto rendered = cost::render_measurement(std::move(spec), code);
    if (!rendered) {
        return rendered.error_value();
    }
    auto submitted = jobs.submit(*rendered, {});
    if (!submitted) {
        return util::error(submitted.error(), submitted.error_code(k_exit_bad_input));
    }
    return util::ok_status();
}

// Run one size until it ends, the time is up or a signal comes; stop and delete it.
util::Result<SizeRun> run_size(backend::local::LocalBackend& jobs, const manifest::JobSpec& spec,
                               const cost::MeasureRequest& request, std::ostream& err) {
    const double limit_s = request.seconds;
    const double started = wall_now();
    const auto start = Clock::now();
    if (auto started_job = start_size(jobs, spec, request.code); !started_job) {
        return started_job.error_value();
    }
    err << fmt::format("measuring {}: {} for at most {}", spec.name,
                       util::counted(spec.replicas, "replica"), util::format_duration(limit_s))
        << std::endl;
    SizeWatch watch(jobs, spec, started);
    cost::UseSampler use(cost::k_local_use_interval);
    auto next_post = start;
    bool extended = false;
    while (true) {
        const auto now = Clock::now();
        watch.run().seconds = std::chrono::duration<double>(now - start).count();
        watch.take_lines();
        use.read_when_due(jobs, spec.name);
        if (now >= next_post) {
            next_post = now + k_post_poll;
            watch.take_post();
        }
        if (watch.ended() || util::interrupt_requested()) {
            break;
        }
        if (!cost::keep_measuring(watch.run().points(), watch.run().seconds, limit_s)) {
            break;
        }
        if (watch.run().seconds >= limit_s && !extended) {
            extended = true;
            err << cost::measuring_longer_note(spec.name, watch.run().points(), limit_s)
                << std::endl;
        }
        std::this_thread::sleep_for(k_size_poll);
    }
    watch.run().use = use.result();
    jobs.remove(spec.name, true);
    if (util::interrupt_requested()) {
        return util::error(fmt::format("stopped by {}: the measurement's processes were stopped "
                                       "and its job {} deleted",
                                       util::interrupt_name(), spec.name),
                           k_exit_interrupted);
    }
    return watch.run();
}

util::Result<estimate::SizeMeasurement> measure_one(backend::local::LocalBackend& jobs,
                                                    const cost::MeasureRequest& request,
                                                    int replicas, const std::string& scratch,
                                                    std::ostream& err) {
    const manifest::JobSpec spec = sized_job(request.spec, replicas, scratch);
    auto run = run_size(jobs, spec, request, err);
    if (!run) {
        return run.error_value();
    }
    if (run->failed) {
        return cost::size_failure(request.spec.name, replicas, *run->failed, lead_name(spec),
                                  run->last_lines);
    }
    auto fitted = cost::fit_size(request, replicas, run->points(), run->seconds, run->finished);
    if (fitted) {
        fitted->use = run->use;
    }
    return fitted;
}

}  // namespace

util::Result<estimate::ProgramProfile> measure_program(const cost::MeasureRequest& request,
                                                       std::ostream& err) {
    util::catch_termination();
    char scratch_template[] = "/tmp/kftrain-measure-XXXXXX";
    const char* made = ::mkdtemp(scratch_template);
    if (made == nullptr) {
        return util::error("--measure: cannot make a scratch directory in /tmp");
    }
    const std::string scratch = made;
    backend::local::LocalBackend jobs(err);
    estimate::ProgramProfile profile = cost::new_profile(request);
    std::optional<util::Error> failure;
    for (int replicas : request.replicas) {
        auto size = measure_one(jobs, request, replicas, scratch, err);
        if (!size) {
            failure = size.error_value();
            break;
        }
        profile.sizes.push_back(*size);
    }
    std::error_code ec;
    fs::remove_all(scratch, ec);
    if (failure) {
        return *failure;
    }
    std::sort(profile.sizes.begin(), profile.sizes.end(),
              [](const auto& a, const auto& b) { return a.world_size < b.world_size; });
    if (auto saved = cost::save_measured_profile(profile, request.profile_out); !saved) {
        return saved.error_value();
    }
    return profile;
}

}  // namespace kftrain::backend::local
