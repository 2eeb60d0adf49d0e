#include "backend/kube/measure/cluster_measure.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <set>
#include <thread>

#include "backend/kube/backend.h"
#include "backend/kube/json_fields.h"
#include "backend/kube/kubectl.h"
#include "backend/kube/measure/measure_reads.h"
#include "backend/kube/queries.h"
#include "cost/measured_use.h"
#include "job/exit_codes.h"
#include "manifest/job_kind.h"
#include "progress/progress_reader.h"
#include "util/process_info.h"
#include "util/signals/interrupt.h"
#include "util/text.h"
#include "util/time_text.h"

namespace kftrain::backend::kube {
namespace {

using Clock = std::chrono::steady_clock;
using estimate::ProgressPoint;

constexpr auto k_poll = std::chrono::seconds(1);
constexpr auto k_gone_deadline = std::chrono::seconds(120);
constexpr size_t k_lines_kept = 8;
constexpr auto k_waiting_note = std::chrono::seconds(10);

double wall_now() {
    return static_cast<double>(util::now_nanoseconds()) / 1e9;
}

// Wait about a poll, or less when a signal comes.
void pause_a_poll() {
    const auto until = Clock::now() + k_poll;
    while (Clock::now() < until && !util::interrupt_requested()) {
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
}

// One size as it runs on the cluster.
struct Size {
    int replicas = 0;
    manifest::JobSpec spec;
    bool submitted = false;
    bool deleted = false;
    bool done = false;
    bool finished = false;
    double submitted_at = 0;           // this machine's clock
    std::optional<double> created;     // the job's creationTimestamp (the API server's clock)
    std::optional<double> started_at;  // its lead container's start (the node's clock)
    Clock::time_point seen_started;    // when this machine saw it start
    std::optional<job::JobStatus> failed;
    std::optional<util::Error> failure;  // it could not be watched, or did not start in time
    std::string waiting;                 // why it waits to start, as last said
    Clock::time_point next_note;         // and when it may be said again
    std::string selector;                // the selector of its pods, once seen
    std::string lead;                    // its lead replica and that replica's pod and container
    std::string lead_pod;
    std::string lead_container;
    std::set<std::string> nodes;
    StampedLog log;
    double last_line_t = 0;           // the last line's time, since the start
    progress::ProgressReader reader;  // of the lead's log
    std::vector<ProgressPoint> lines;
    std::vector<ProgressPoint> posts;
    std::string last_post;
    std::vector<std::string> last_lines;
    double seconds = 0;
    bool extended = false;
    cost::UseSampler use{cost::k_cluster_use_interval};

    const std::vector<ProgressPoint>& points() const {
        return posts.size() > lines.size() ? posts : lines;
    }
    bool active() const { return submitted && !done; }
};

// A measurement's jobs on the cluster: what it started, watched each poll, and deleted
// however it ends (the destructor deletes what is left).
class ClusterMeasurement {
  public:
    ClusterMeasurement(const job::BackendOptions& global, const cost::MeasureRequest& request,
                       std::ostream& err)
        : m_request(request),
          m_err(err),
          m_backend(make_kubernetes_backend(global, request.spec.namespace_)),
          m_kubectl(make_kubectl_runner(global)),
          m_queries(*m_kubectl, request.spec.namespace_) {
        for (int replicas : request.replicas) {
            Size size;
            size.replicas = replicas;
            size.spec = cluster_job(request.spec, replicas);
            m_sizes.push_back(std::move(size));
        }
    }
    ~ClusterMeasurement() { clean_up(); }
    ClusterMeasurement(const ClusterMeasurement&) = delete;
    ClusterMeasurement& operator=(const ClusterMeasurement&) = delete;

    // Run every size; return the profile (not yet saved).
    util::Result<estimate::ProgramProfile> run() {
        if (auto free = check_free(); !free) {
            return free.error_value();
        }
        if (auto watched = watch_all(); !watched) {
            clean_up();
            return watched.error_value();
        }
        clean_up();
        return profile();
    }

  private:
    // Refuse to start when a job of a measurement's name exists: it is not ours to replace.
    util::Status check_free() {
        for (const Size& size : m_sizes) {
            auto existing = m_backend->status_without_progress(size.spec.name);
            if (existing) {
                return util::error(
                    fmt::format("--on-cluster: a job named {} exists in {} (an earlier "
                                "measurement?); nothing was submitted: delete it with kftrain "
                                "delete {}",
                                size.spec.name, m_queries.namespace_text(), size.spec.name),
                    k_exit_bad_input);
            }
            if (existing.error_code(0) != k_exit_not_found) {
                return existing.error_value();
            }
        }
        return util::ok_status();
    }

    // Start the sizes (one at a time, or all at once) and watch them until each is done.
    util::Status watch_all() {
        size_t next = 0;
        while (true) {
            if (util::interrupt_requested()) {
                return interrupted();
            }
            const bool busy = std::any_of(m_sizes.begin(), m_sizes.end(),
                                          [](const Size& s) { return s.active(); });
            while (next < m_sizes.size() && (m_request.parallel || !busy)) {
                if (auto started = submit(m_sizes[next++]); !started) {
                    return util::interrupt_requested() ? interrupted() : started;
                }
                if (!m_request.parallel) {
                    break;
                }
            }
            bool any = false;
            for (Size& size : m_sizes) {
                if (size.active()) {
                    any = true;
                    look(size);
                    if (util::interrupt_requested()) {  // a call it stopped is no failure
                        return interrupted();
                    }
                    if (auto failed = failure_of(size); !failed) {
                        return failed;
                    }
                }
            }
            if (!any && next == m_sizes.size()) {
                return util::ok_status();
            }
            pause_a_poll();
        }
    }

    util::Status interrupted() {
        const std::vector<std::string> left = clean_up();
        const std::string what =
            left.empty() ? "every measurement job it started was deleted, and their pods are gone"
                         : fmt::format("its clean-up stopped too; what may be left: {}",
                                       fmt::join(left, "; "));
        return util::error(fmt::format("stopped by {}: {}", util::interrupt_name(), what),
                           k_exit_interrupted);
    }

    util::Status submit(Size& size) {
        auto rendered = cost::render_measurement(size.spec, m_request.code);
        if (!rendered) {
            return rendered.error_value();
        }
        size.submitted_at = wall_now();
        size.submitted = true;  // from here on it is deleted however this ends
        job::Reporter report{m_err, m_err};
        auto submitted = m_backend->submit(*rendered, {}, report);
        if (!submitted) {
            return submitted.error_value();
        }
        m_err << fmt::format("measuring {}: {} for at most {} once its pods run ({})",
                             size.spec.name, util::counted(size.replicas, "replica"),
                             util::format_duration(m_request.seconds), *submitted)
              << std::endl;
        return util::ok_status();
    }

    // Turn a size that failed, or could not start, into the measurement's error.
    util::Status failure_of(const Size& size) const {
        if (size.failure) {
            return *size.failure;
        }
        if (size.failed) {
            return cost::size_failure(m_request.spec.name, size.replicas, *size.failed, size.lead,
                                      size.last_lines);
        }
        return util::ok_status();
    }

    // One look at a size: its start, its progress, and whether it is done.
    void look(Size& size) {
        auto status = m_backend->status_without_progress(size.spec.name);
        if (!status) {
            size.failure = status.error_value();
            return;
        }
        if (!status->pod_selector.empty()) {
            size.selector = status->pod_selector;
        }
        for (const auto& replica : status->replicas) {
            if (!replica.node.empty()) {
                size.nodes.insert(replica.node);
            }
        }
        if (!size.created) {
            size.created = util::parse_timestamp_seconds(status->created);
        }
        if (!size.started_at && !wait_for_start(size, *status)) {
            return;
        }
        read_progress(size, *status);
        size.use.read_when_due(*m_backend, size.spec.name);  // what its replicas use
        if (status->phase == job::JobPhase::Failed) {
            size.failed = *status;
            return;
        }
        size.seconds =
            std::max(std::chrono::duration<double>(Clock::now() - size.seen_started).count(),
                     size.last_line_t);
        if (status->phase == job::JobPhase::Succeeded) {
            size.finished = true;
            size.seconds = size.last_line_t;  // from its start to its last line
        } else if (cost::keep_measuring(size.points(), size.seconds, m_request.seconds)) {
            if (size.seconds >= m_request.seconds && !size.extended) {
                size.extended = true;
                m_err << cost::measuring_longer_note(size.spec.name, size.points(),
                                                     m_request.seconds)
                      << std::endl;
            }
            return;
        }
        size.done = true;
        remove(size);
    }

    // Return whether the size's pods have all started, noting when its lead's container did;
    // say why it waits while it does, and fail it once it has waited too long.
    bool wait_for_start(Size& size, const job::JobStatus& status) {
        const double waited = wall_now() - size.submitted_at;
        if (status.phase == job::JobPhase::Failed) {
            size.failed = status;
            return false;
        }
        const job::ReplicaStatus* lead = lead_of(status);
        if (lead == nullptr || !all_started(status)) {
            // Said when it changes, at most every k_waiting_note (a pull that fails flips
            // between ErrImagePull and ImagePullBackOff every few seconds).
            const std::string why = not_started_reason(status);
            if (why != size.waiting && (size.waiting.empty() || Clock::now() >= size.next_note)) {
                size.waiting = why;
                size.next_note = Clock::now() + k_waiting_note;
                m_err << fmt::format("{} waiting to start ({}): {}", size.spec.name,
                                     util::format_duration(waited), why)
                      << std::endl;
            }
            if (waited > m_request.start_timeout_s) {
                size.failure =
                    util::error(fmt::format("--on-cluster: the pods of {} did not start within {} "
                                            "(--start-timeout): {}; its job is deleted",
                                            size.spec.name,
                                            util::format_duration(m_request.start_timeout_s), why),
                                k_exit_job_failed);
            }
            return false;
        }
        size.lead = lead->name;
        size.lead_pod = lead->pod;
        size.lead_container = lead->container.empty() ? "pytorch" : lead->container;
        size.seen_started = Clock::now();
        size.started_at = last_start(size, status).value_or(wall_now());
        const double queued = size.created ? *size.started_at - *size.created : waited;
        m_err << fmt::format(
                     "{} started after {} (queued, scheduled, images pulled: reported, "
                     "not measured)",
                     size.spec.name, util::format_duration(std::max(queued, 0.0)))
              << std::endl;
        return true;
    }

    // When the last of its replicas' containers started (measure_reads.h: last_started).
    std::optional<double> last_start(const Size& size, const job::JobStatus& status) {
        if (status.pod_selector.empty()) {
            return std::nullopt;
        }
        auto pods = m_queries.call({"get", "pods", "-o", "json", "-l", status.pod_selector});
        auto parsed = pods && pods->ok() ? parse_json_object(pods->out)
                                         : util::Result<nlohmann::json>(util::error("unread"));
        return parsed ? last_started(*parsed, status.replicas, size.lead_container) : std::nullopt;
    }

    // Read the lines the lead printed since the last look, and a TrainJob's trainerStatus.
    void read_progress(Size& size, const job::JobStatus& status) {
        std::vector<std::string> args = {"logs", size.lead_pod, "-c", size.lead_container,
                                         "--timestamps"};
        const std::string since = size.log.since();
        args.push_back(since.empty() ? "--tail=-1" : "--since-time=" + since);
        auto read = m_queries.call(args);
        if (read && read->ok()) {
            for (StampedLine& line : size.log.take(read->out)) {
                const double t = std::max(0.0, line.time - *size.started_at);
                size.last_line_t = std::max(size.last_line_t, t);
                size.reader.take_output(line.text, t);
                if (const auto& progress = size.reader.progress();
                    size.reader.changed() && progress) {
                    if (auto point = cost::progress_point(*progress, t)) {
                        size.lines.push_back(*point);
                    }
                }
                size.last_lines.push_back(std::move(line.text));
                if (size.last_lines.size() > k_lines_kept) {
                    size.last_lines.erase(size.last_lines.begin());
                }
            }
        }
        if (status.kind != manifest::kind_name(manifest::JobKind::TrainJob)) {
            return;
        }
        auto posted = m_backend->posted_progress(size.spec.name);
        if (posted && posted->percent && posted->time != size.last_post) {
            size.last_post = posted->time;
            auto when = util::parse_timestamp_seconds(posted->time);
            const double t =
                when && *when >= *size.started_at ? *when - *size.started_at : size.last_line_t;
            job::Progress percent_only;
            percent_only.percent = posted->percent;
            if (auto point = cost::progress_point(percent_only, t)) {
                size.posts.push_back(*point);
            }
        }
    }

    // Delete a size's job (and with it its code); a failure is said and tried again at the end.
    void remove(Size& size) {
        auto removed = m_backend->remove(size.spec.name, true);
        if (removed || removed.error_code(0) == k_exit_not_found) {
            size.deleted = true;
            m_err << fmt::format("deleted {}", size.spec.name) << std::endl;
            // One after another: the next size starts on nodes this one has left.
            if (!m_request.parallel && !size.selector.empty() && !util::interrupt_requested() &&
                wait_gone(size, Clock::now() + k_gone_deadline)) {
                size.selector.clear();
            }
            return;
        }
        m_err << fmt::format("kftrain: warning: could not delete {} yet: {}", size.spec.name,
                             removed.error())
              << std::endl;
    }

    // Delete every job started and not yet deleted, then wait until their pods are gone; a
    // signal while it does (a second Ctrl-C) stops it at once. Return what may be left.
    std::vector<std::string> clean_up() {
        const unsigned seen = util::interrupt_count();  // once stopped, stopped for good
        const auto stopped = [&] { return m_clean_up_stopped || util::interrupt_count() != seen; };
        std::vector<std::string> left;
        for (Size& size : m_sizes) {
            if (size.submitted && !size.deleted) {
                size.done = true;
                if (!stopped()) {
                    remove(size);
                }
                if (!size.deleted) {
                    left.push_back(
                        fmt::format("job {} (kftrain delete {})", size.spec.name, size.spec.name));
                }
            }
        }
        const auto deadline = Clock::now() + k_gone_deadline;
        for (Size& size : m_sizes) {
            if (size.submitted && !size.selector.empty() &&
                (stopped() || !wait_gone(size, deadline))) {
                left.push_back(fmt::format("pods of {} (kubectl get pods -l {})", size.spec.name,
                                           size.selector));
            }
            size.selector.clear();  // waited for once
        }
        m_clean_up_stopped = stopped();
        if (!left.empty() && !stopped()) {
            m_err << fmt::format(
                         "kftrain: warning: still there after {}: {}",
                         util::format_duration(static_cast<double>(k_gone_deadline.count())),
                         fmt::join(left, "; "))
                  << std::endl;
        }
        return left;
    }

    // Wait until no pod of the size is left (the garbage collector deletes them with the job;
    // those still there are deleted too); false at the deadline.
    bool wait_gone(const Size& size, Clock::time_point deadline) {
        bool asked = false;
        const unsigned signals = util::interrupt_count();  // another Ctrl-C ends the wait
        while (Clock::now() < deadline && util::interrupt_count() == signals) {
            auto pods = m_queries.call({"get", "pods", "-l", size.selector, "-o", "name"});
            if (pods && pods->ok() && util::trim(pods->out).empty()) {
                return true;
            }
            if (!asked) {
                asked = true;
                // A second of grace, not the default 30 s: nothing of a measurement's pods is
                // kept, and the kubelet still stops them before they are gone (no --force).
                (void)m_queries.call({"delete", "pods", "-l", size.selector, "--wait=false",
                                      "--grace-period=1", "--ignore-not-found"});
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(500));
        }
        return false;
    }

    // The profile of what every size did, and where.
    util::Result<estimate::ProgramProfile> profile() {
        estimate::ProgramProfile profile = cost::new_profile(m_request);
        profile.host_cpus = 0;  // not this machine's: the nodes' are in where.hardware
        profile.where = where();
        for (const Size& size : m_sizes) {
            auto fitted = cost::fit_size(m_request, size.replicas, size.points(), size.seconds,
                                         size.finished);
            if (!fitted) {
                return fitted.error_value();
            }
            if (size.started_at && size.created) {
                fitted->waited_s = std::max(0.0, *size.started_at - *size.created);
            }
            fitted->use = size.use.result();
            profile.sizes.push_back(*fitted);
        }
        std::sort(profile.sizes.begin(), profile.sizes.end(),
                  [](const auto& a, const auto& b) { return a.world_size < b.world_size; });
        return profile;
    }

    // Where it ran: the context, namespace, nodes (and what they are) and image.
    estimate::MeasuredWhere where() {
        std::set<std::string> nodes;
        for (const Size& size : m_sizes) {
            nodes.insert(size.nodes.begin(), size.nodes.end());
        }
        return measured_where(m_queries, m_request.spec, nodes);
    }

    const cost::MeasureRequest& m_request;
    std::ostream& m_err;
    std::unique_ptr<job::Backend> m_backend;
    std::unique_ptr<KubectlRunner> m_kubectl;
    KubeQueries m_queries;
    std::vector<Size> m_sizes;
    bool m_clean_up_stopped = false;  // a signal stopped the clean-up: never start it again
};

}  // namespace

util::Result<estimate::ProgramProfile> measure_on_cluster(const job::BackendOptions& global,
                                                          const cost::MeasureRequest& request,
                                                          std::ostream& err) {
    util::catch_termination();
    util::Result<estimate::ProgramProfile> profile = [&] {
        ClusterMeasurement measurement(global, request, err);
        return measurement.run();
    }();
    if (!profile) {
        return profile;
    }
    if (auto saved = cost::save_measured_profile(*profile, request.profile_out); !saved) {
        return saved.error_value();
    }
    return profile;
}

}  // namespace kftrain::backend::kube
