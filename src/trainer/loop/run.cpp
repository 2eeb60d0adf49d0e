#include "trainer/loop/run.h"

#include <fmt/format.h>

#include <exception>
#include <memory>
#include <string>

#include "trainer/loop/progress.h"
#include "trainer/loop/run_logger.h"
#include "trainer/loop/session_setup.h"
#include "trainer/loop/tracking.h"
#include "trainer/loop/trainer.h"
#include "trainer/metrics/exposition.h"
#include "trainer/metrics/registry.h"
#include "trainer/metrics/server.h"
#include "trainer/process/signals.h"
#include "trainer/profile/benchmark.h"
#include "trainer/trainer_status/reporter.h"
#include "util/text.h"
#include "wire/progress_events.h"

namespace kftrain::trainer {
namespace {

namespace event = wire::event;
namespace field = wire::field;

// Serve the metrics at --metrics-port (nothing when it is 0), labelled with the job's name
// (KFTRAIN_JOB_NAME, which kftrain renders) and the rank. The processes a trainer spawns for
// nproc-per-node share the pod's network: local rank i serves at the port plus i.
util::Result<std::unique_ptr<metrics::MetricsServer>> serve_metrics(
    const TrainOptions& options, const DistEnv& env, const metrics::TrainerMetrics& values) {
    if (options.metrics_port == 0) {
        return std::unique_ptr<metrics::MetricsServer>();
    }
    const auto lookup = process_env();
    const int offset = lookup(k_spawned_env) ? env.local_rank : 0;
    const int port = options.metrics_port + offset;
    metrics::Labels labels{lookup("KFTRAIN_JOB_NAME").value_or(""), std::to_string(env.rank)};
    auto server = metrics::MetricsServer::start(
        port, [&values, labels] { return metrics::render_exposition(values.snapshot(), labels); });
    if (!server.ok() && offset > 0) {
        return util::error(fmt::format("{} (local rank {} serves at --metrics-port + {}: {})",
                                       server.error(), offset, offset, port));
    }
    return server;
}

}  // namespace

int run_trainer(const TrainOptions& options, const DistEnv& env, std::ostream& out,
                std::ostream& err) {
    process::install_stop_handlers();
    ProgressLog log(out, err, options.log_format == "json", env.rank, env.world_size);
    const auto warn = [&log](const std::string& message) {
        log.emit(event::k_warning, {{field::k_message, message}});
    };
    // Declared before the tracker, so that it outlives the tracker's last warnings.
    const auto status = trainer_status::make_status_reporter(env.rank, process_env(), warn);
    if (status->active()) {
        log.set_listener([&status](const std::string& name, const Fields& fields) {
            status->on_event(name, fields);
        });
    }
    auto tracker = make_run_logger(RunInfo{env.rank, env.world_size, options.checkpoint_dir, warn});
    metrics::TrainerMetrics exported;
    exported.set_world_size(env.world_size);
    // Declared after what it reads: stopped before the values go.
    auto server = serve_metrics(options, env, exported);
    if (!server.ok()) {
        log.emit(event::k_error, {{field::k_message, server.error()}});
        tracker->set_status(RunStatus::failed);
        return 1;
    }
    try {
        auto session = open_session(options, env, log);
        if (!session.ok()) {
            log.emit(event::k_error, {{field::k_message, session.error()}});
            tracker->set_status(RunStatus::failed);
            return 1;
        }
        if (options.benchmark_steps > 0) {
            return run_benchmark(**session);
        }
        Trainer trainer(**session, *tracker, exported);
        const int code = trainer.run();
        // The issue asks for FAILED after SIGTERM too; a restart sets the run back to RUNNING.
        tracker->set_status(code == 0 ? RunStatus::finished : RunStatus::failed);
        return code;
    } catch (const std::exception& e) {
        const auto hint = env.world_size > 1 ? " (a peer failed, exited or timed out)" : "";
        log.emit(event::k_error, {{field::k_message, util::first_line(e.what()) + hint}});
        tracker->set_status(RunStatus::failed);
        return 1;
    }
}

}  // namespace kftrain::trainer
