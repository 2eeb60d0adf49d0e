#include "cli/job/follow.h"

#include <fmt/format.h>

#include "cli/exit_codes.h"
#include "cli/job/interrupt.h"
#include "cli/view/log_printer.h"
#include "cli/view/status_view.h"

namespace kftrain::cli::job {

int follow_job(Backend& backend, const std::string& job, int replicas, const FollowFlags& flags,
               Context& ctx) {
    if (backend.name() == "local") {
        catch_interrupts();  // the local logs loop checks it; kubectl ends on Ctrl-C by itself
    }
    view::LogPrintOptions print;
    print.prefix_width = replicas > 1 ? fmt::format("worker-{}", replicas - 2).size() : 8;
    print.flush_each = true;
    print.live = view::wants_live_progress(ctx.out, flags.no_progress, false);
    view::LogPrinter printer(ctx.out, ctx.err, print);
    LogOptions options;
    options.follow = true;
    auto followed =
        backend.logs(job, options, [&printer](const LogLine& line) { printer.print(line); });
    printer.finish();  // the live lines stay as final ones; what follows goes below them
    if (!followed && followed.error_code(0) == k_exit_interrupted) {
        if (!flags.stop_on_interrupt) {
            std::string local = backend.name() == "local" ? " --local" : "";
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
    if (status->phase == JobPhase::Failed) {
        return k_exit_job_failed;
    }
    return k_exit_ok;
}

}  // namespace kftrain::cli::job
