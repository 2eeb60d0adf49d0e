#include "cli/local/local_backend.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <thread>

#include "cli/exit_codes.h"
#include "cli/local/command_line.h"
#include "cli/local/describe.h"
#include "cli/local/logs.h"
#include "cli/local/stop.h"
#include "cli/local/job_plan.h"
#include "cli/local/proc_info.h"
#include "cli/local/replica_container.h"
#include "cli/local/replica_env.h"
#include "cli/local/state_dir.h"
#include "cli/local/status_convert.h"
#include "util/subprocess.h"

namespace kftrain::cli::local {
namespace fs = std::filesystem;
namespace {

constexpr auto k_start_timeout = std::chrono::seconds(15);
constexpr auto k_poll = std::chrono::milliseconds(50);

std::string current_dir() {
    std::error_code ec;
    auto path = fs::current_path(ec);
    return ec ? std::string() : path.string();
}

util::Result<PlanContext> plan_context(const std::string& kftrain) {
    auto master = free_port();
    auto rdzv = free_port();
    if (!master || !rdzv) {
        return util::error(master ? rdzv.error() : master.error());
    }
    PlanContext context;
    context.self_dir = fs::path(kftrain).parent_path().string();
    context.cwd = current_dir();
    context.ports = Ports{*master, *rdzv};
    context.now = now_timestamp();
    return context;
}

// Join phrases with ", ".
std::string joined(const std::vector<std::string>& items) {
    std::string list;
    for (const auto& item : items) {
        list += (list.empty() ? "" : ", ") + item;
    }
    return list;
}

// Say once what the manifest sets that this machine does not carry out.
void print_notes(std::ostream& err, const job::RenderedJob& job) {
    auto containers = read_replica_containers(job.manifest);
    if (!containers) {
        return;  // plan_job has refused it already
    }
    auto ignored = ignored_settings(*containers, job.spec.volumes);
    if (!ignored.empty()) {
        err << "kftrain: note: running on this machine: " << joined(ignored)
            << (ignored.size() == 1 ? " does" : " do") << " not apply (volumes with localPath are "
            << "mapped)\n";
    }
    std::vector<std::string> not_set;
    for (const auto& [type, container] : *containers) {
        for (const auto& name : container.env_not_set) {
            if (std::find(not_set.begin(), not_set.end(), name) == not_set.end()) {
                not_set.push_back(name);
            }
        }
    }
    if (!not_set.empty()) {
        err << "kftrain: note: variables from Secrets and other references are not set "
               "locally: "
            << joined(not_set) << "\n";
    }
}

util::Status prepare_dir(const JobState& state) {
    std::error_code ec;
    fs::remove_all(job_dir(state.name), ec);
    fs::create_directories(logs_dir(state.name), ec);
    if (ec) {
        return util::error(fmt::format("cannot create {}: {}", logs_dir(state.name), ec.message()));
    }
    return write_job_state(state);
}

}  // namespace

LocalBackend::LocalBackend(std::ostream& err, std::string kftrain)
    : m_err(err), m_kftrain(kftrain.empty() ? self_executable() : std::move(kftrain)) {}

std::unique_ptr<job::Backend> make_local_backend(std::ostream& err) {
    return std::make_unique<LocalBackend>(err);
}

util::Result<std::string> LocalBackend::submit(const job::RenderedJob& job, const job::SubmitFlags& flags) {
    const manifest::JobSpec& spec = job.spec;
    if (flags.dry_run == job::DryRun::Server) {
        return util::error(
            "--dry-run: server needs a cluster; use --dry-run to print the job "
            "(got server with the local backend)",
            k_exit_bad_input);
    }
    auto existing = read_job_state(spec.name);
    if (existing && supervisor_alive(*existing)) {
        if (!flags.replace) {
            return util::error(fmt::format("job {} is already running on this machine; delete it "
                                           "or submit with --replace",
                                           spec.name),
                               k_exit_bad_input);
        }
        stop_processes(*existing);
    }
    auto context = plan_context(m_kftrain);
    if (!context) {
        return context.error_value();
    }
    auto state = plan_job(job, *context);
    if (!state) {
        return state.error_value();
    }
    print_notes(m_err, job);
    auto prepared = prepare_dir(*state);
    if (!prepared) {
        return prepared.error_value();
    }
    auto started = start_supervisor(spec.name);
    if (!started) {
        return started.error_value();
    }
    return fmt::format("job {} started (local)", spec.name);
}

util::Status LocalBackend::start_supervisor(const std::string& job) {
    util::SpawnOptions options;
    options.argv = {m_kftrain, "__supervise", job};
    options.stdin_from = util::Redirect::null();
    options.stdout_to = util::Redirect::null();
    options.stderr_to = util::Redirect::file(job_dir(job) + "/supervisor.log");
    options.new_session = true;
    auto process = util::Process::spawn(options);
    if (!process) {
        return process.error_value();
    }
    process->wait();  // the first process only starts the detached supervisor and exits
    auto deadline = std::chrono::steady_clock::now() + k_start_timeout;
    while (std::chrono::steady_clock::now() < deadline) {
        auto state = read_job_state(job);
        if (state && state->supervisor_pid != 0) {
            return util::ok_status();
        }
        std::this_thread::sleep_for(k_poll);
    }
    std::string message = fmt::format(
        "the supervisor of job {} did not start; see {}/supervisor.log", job, job_dir(job));
    auto state = read_job_state(job);
    if (state) {
        state->phase = "Failed";
        state->reason = "SupervisorFailed";
        state->message = message;
        write_job_state(*state);
    }
    return util::error(message, k_exit_cluster);
}

util::Result<job::JobStatus> LocalBackend::status(const std::string& job) {
    auto state = read_job_state(job);
    if (!state) {
        return state.error_value();
    }
    return status_from_state(*state, supervisor_alive(*state));
}

util::Result<std::vector<job::JobStatus>> LocalBackend::list(bool /*all_namespaces*/) {
    std::vector<job::JobStatus> jobs;
    for (const auto& name : job_names()) {
        auto state = read_job_state(name);
        if (state) {
            jobs.push_back(status_from_state(*state, supervisor_alive(*state)));
        }
    }
    return jobs;
}

util::Status LocalBackend::logs(const std::string& job, const job::LogOptions& options,
                                const job::LogSink& sink) {
    auto state = read_job_state(job);
    if (!state) {
        return state.error_value();
    }
    return read_logs(job, options, sink);
}

util::Status LocalBackend::remove(const std::string& job, bool /*wait*/) {
    auto state = read_job_state(job);
    if (!state) {
        return state.error_value();
    }
    stop_processes(*state);
    std::error_code ec;
    fs::remove_all(job_dir(job), ec);
    if (ec) {
        return util::error(fmt::format("cannot remove {}: {}", job_dir(job), ec.message()));
    }
    return util::ok_status();
}

util::Status LocalBackend::stop(const std::string& job) {
    auto state = read_job_state(job);
    if (!state) {
        return state.error_value();
    }
    stop_processes(*state);
    return util::ok_status();
}

util::Result<std::string> LocalBackend::describe(const std::string& job) {
    auto state = read_job_state(job);
    if (!state) {
        return state.error_value();
    }
    return describe_text(*state, status_from_state(*state, supervisor_alive(*state)));
}

}  // namespace kftrain::cli::local
