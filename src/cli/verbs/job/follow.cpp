#include "cli/verbs/job/follow.h"

#include <fmt/format.h>

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <thread>

#include "cli/view/log_printer.h"
#include "cli/view/status_view.h"
#include "job/exit_codes.h"
#include "util/signals/interrupt.h"

namespace kftrain::cli {
namespace {

constexpr auto k_posted_poll = std::chrono::seconds(2);
constexpr size_t k_prefix_width = 8;  // "master-0", "worker-2"

// Polls what the job's program posts (trainerStatus) while its logs are followed, and shows
// it on the printer's live lines, until destroyed.
class PostedPoller {
  public:
    PostedPoller(job::Backend& backend, const std::string& job, view::LogPrinter& printer)
        : m_thread([this, &backend, job, &printer] { poll(backend, job, printer); }) {}
    PostedPoller(const PostedPoller&) = delete;
    PostedPoller& operator=(const PostedPoller&) = delete;
    ~PostedPoller() {
        {
            std::lock_guard<std::mutex> lock(m_mutex);
            m_stop = true;
        }
        m_wake.notify_all();
        m_thread.join();
    }

  private:
    void poll(job::Backend& backend, const std::string& job, view::LogPrinter& printer) {
        std::unique_lock<std::mutex> lock(m_mutex);
        while (!m_wake.wait_for(lock, k_posted_poll, [this] { return m_stop; })) {
            lock.unlock();
            if (auto posted = backend.posted_progress(job)) {
                printer.show_posted(*posted);
            }
            lock.lock();
        }
    }

    std::mutex m_mutex;
    std::condition_variable m_wake;
    bool m_stop = false;
    std::thread m_thread;  // last: it starts once the members above exist
};

// Whether a followed job may post trainerStatus: any local job, a TrainJob on a cluster.
bool may_post(job::Backend& backend, const std::string& job) {
    if (backend.capabilities().every_job_posts) {
        return true;
    }
    auto kind = backend.kind_of(job);
    return kind && *kind == "TrainJob";
}

}  // namespace

util::Status stream_logs(job::Backend& backend, const std::string& job,
                         const job::LogOptions& options, view::LogPrinter& printer, bool live) {
    std::optional<PostedPoller> poller;
    if (live && options.follow && may_post(backend, job)) {
        poller.emplace(backend, job, printer);
    }
    return backend.logs(job, options,
                        [&printer](const job::LogLine& line) { printer.print(line); });
}

int follow_job(job::Backend& backend, const std::string& job, int replicas,
               const FollowFlags& flags, Context& ctx) {
    if (backend.capabilities().logs_need_interrupt_catch) {
        util::catch_interrupts();  // the local logs loop checks it; kubectl ends on Ctrl-C by
                                   // itself
    }
    view::LogPrintOptions print;
    print.prefix_width =
        replicas > 1 ? fmt::format("worker-{}", replicas - 2).size() : k_prefix_width;
    print.flush_each = true;
    print.live = view::wants_live_progress(ctx.out, flags.no_progress, false);
    view::LogPrinter printer(ctx.out, ctx.err, print);
    job::LogOptions options;
    options.follow = true;
    auto followed = stream_logs(backend, job, options, printer, print.live);
    printer.finish();  // the live lines stay as final ones; what follows goes below them
    if (!followed && followed.error_code(0) == k_exit_interrupted) {
        if (!flags.stop_on_interrupt) {
            std::string local = backend.capabilities().on_this_machine ? " --local" : "";
            ctx.err << fmt::format(
                "kftrain: stopped following; job {0} keeps running "
                "(kftrain logs -f {0}{1}, kftrain delete {0}{1})\n",
                job, local);
            return k_exit_interrupted;
        }
        auto stopped = backend.stop(job);
        if (!stopped) {
            return report_error(ctx, stopped.error(), stopped.error_code(k_exit_cluster));
        }
        ctx.err << fmt::format("kftrain: interrupted; job {} stopped\n", job);
        return k_exit_interrupted;
    }
    if (!followed) {
        return report_error(ctx, followed.error(), followed.error_code(k_exit_cluster));
    }
    auto status = backend.status(job);
    if (!status) {
        return report_error(ctx, status.error(), status.error_code(k_exit_cluster));
    }
    ctx.err << fmt::format("job {} {}\n", job, view::format_state(*status));
    if (status->phase == job::JobPhase::Failed) {
        return k_exit_job_failed;
    }
    return k_exit_ok;
}

int print_logs(job::Backend& backend, const std::string& job, const job::LogOptions& options,
               bool raw, bool no_progress, Context& ctx) {
    view::LogPrintOptions print;
    print.prefix_width = k_prefix_width;
    print.raw = raw;
    print.flush_each = options.follow;
    print.live = options.follow && view::wants_live_progress(ctx.out, no_progress, raw);
    view::LogPrinter printer(ctx.out, ctx.err, print);
    auto done = stream_logs(backend, job, options, printer, print.live);
    printer.finish();
    if (!done) {
        return report_error(ctx, done.error(), done.error_code(k_exit_cluster));
    }
    return k_exit_ok;
}

}  // namespace kftrain::cli
