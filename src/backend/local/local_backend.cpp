#include "backend/local/local_backend.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <map>
#include <thread>

#include "backend/local/describe.h"
#include "backend/local/job_plan.h"
#include "backend/local/logs.h"
#include "backend/local/process/command_line.h"
#include "backend/local/process/launch.h"
#include "backend/local/process/replica_container.h"
#include "backend/local/process/replica_env.h"
#include "backend/local/process/stop.h"
#include "backend/local/queue/queue_members.h"
#include "backend/local/state/code_snapshot.h"
#include "backend/local/state/last_word.h"
#include "backend/local/state/name_lock.h"
#include "backend/local/state/state_dir.h"
#include "backend/local/status_convert.h"
#include "backend/local/suspend.h"
#include "inspect/diagnosis_run.h"
#include "job/exit_codes.h"
#include "util/json_text.h"
#include "util/process_info.h"
#include "util/redact.h"
#include "util/subprocess.h"

namespace kftrain::backend::local {
namespace fs = std::filesystem;
namespace {

constexpr auto k_start_timeout = std::chrono::seconds(15);
constexpr auto k_poll = std::chrono::milliseconds(50);
// How long a verb waits for another one that changes the same job (a submit waits for its
// supervisor up to k_start_timeout; a delete for the job's grace periods).
constexpr auto k_lock_wait = std::chrono::milliseconds(40000);

std::string current_dir() {
    std::error_code ec;
    auto path = fs::current_path(ec);
    return ec ? std::string() : path.string();
}

util::Result<PlanContext> plan_context(const std::string& kftrain) {
    auto master = util::free_port();
    auto rdzv = util::free_port();
    if (!master || !rdzv) {
        return util::error(master ? rdzv.error() : master.error());
    }
    PlanContext context;
    context.self_dir = fs::path(kftrain).parent_path().string();
    context.cwd = current_dir();
    context.ports = Ports{*master, *rdzv};
    context.now = util::now_timestamp();
    context.now_ns = util::now_nanoseconds();
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
void print_notes(std::ostream& err, const job::RenderedJob& job,
                 const std::map<std::string, std::string>& from_shell) {
    auto containers = read_replica_containers(job.manifest);
    if (!containers) {
        return;  // plan_job has refused it already
    }
    auto ignored = ignored_settings(*containers, job.spec);
    if (!ignored.empty()) {
        err << "kftrain: note: running on this machine: "
            << util::redact_credentials(joined(ignored)) << (ignored.size() == 1 ? " does" : " do")
            << " not apply (volumes with localPath are "
            << "mapped)\n";
    }
    if (!job.spec.queue_priority_class.empty()) {
        err << "kftrain: note: running on this machine: priority class "
            << job.spec.queue_priority_class << " does not apply (the local queue "
            << job.spec.queue << " runs its jobs in submit order)\n";
    }
    std::vector<std::string> not_set;
    for (const auto& [type, container] : *containers) {
        for (const auto& name : container.env_not_set) {
            if (std::find(not_set.begin(), not_set.end(), name) == not_set.end() &&
                from_shell.count(name) == 0) {
                not_set.push_back(name);
            }
        }
    }
    if (!not_set.empty()) {
        err << "kftrain: note: variables from Secrets and other references are not set "
               "locally: "
            << joined(not_set) << " (pass one from your shell with --env-from-shell NAME)\n";
    }
    if (!from_shell.empty()) {
        std::vector<std::string> names;
        for (const auto& entry : from_shell) {
            names.push_back(entry.first);
        }
        err << "kftrain: note: passed from your shell (--env-from-shell): " << joined(names)
            << "\n";
    }
}

// Write a file the supervisor appends to, so that it is made mode 0600.
util::Status make_private_file(const std::string& path) {
    return util::write_file_atomic(path, "");
}

// Fill a new state directory at dir: logs/, state.json, launch.json, supervisor.json's
// reserved space and supervisor.log.
util::Status fill_dir(const std::string& dir, const JobState& state,
                      const std::vector<ReplicaLaunch>& launch) {
    auto done = util::make_private_dir(dir + "/" + k_logs_folder);
    if (done) {
        done = util::write_file_atomic(dir + "/" + k_state_file,
                                       util::json_text(to_json(state), 2) + "\n");
    }
    if (done) {
        done = util::write_file_atomic(dir + "/" + k_launch_file, launch_json(launch));
    }
    if (done) {
        done = util::reserve_file(dir + "/" + k_last_word_file, k_last_word_size);
    }
    if (done) {
        done = make_private_file(dir + "/" + k_supervisor_log_file);
    }
    return done;
}

// Make the job's state directory: filled beside it, then renamed into place, so that no
// verb ever sees it half made; an old one (a finished job of the name) is removed.
util::Status prepare_dir(const JobState& state, const std::vector<ReplicaLaunch>& launch,
                         const std::optional<manifest::CodeBundle>& code) {
    const std::string staging = fmt::format("{}/.new-{}-{}", jobs_root(), state.name, ::getpid());
    (void)remove_job_folder(staging);
    auto filled = fill_dir(staging, state, launch);
    if (filled && code) {  // becomes code_dir(state.name) with the rename below
        filled = write_code_snapshot(staging + "/code", *code);
    }
    if (filled) {
        (void)remove_job_folder(job_dir(state.name));
        if (::rename(staging.c_str(), job_dir(state.name).c_str()) != 0) {
            filled = util::error(
                fmt::format("cannot create {}: {}", job_dir(state.name), std::strerror(errno)));
        }
    }
    if (!filled) {
        (void)remove_job_folder(staging);
    }
    return filled;
}

// Refuse to submit over a job of the name that runs, or whose state cannot be read; stop it
// first with --replace.
util::Status make_room(const std::string& name, bool replace) {
    auto existing = read_job_state(name);
    if (!existing) {
        if (existing.error_code(0) == k_exit_not_found) {
            return util::ok_status();
        }
        return util::error(fmt::format("job {} exists on this machine and cannot be replaced: {}",
                                       name, existing.error()),
                           k_exit_bad_input);
    }
    if (existing->phase == "Suspended" && !replace) {
        return util::error(fmt::format("job {} is suspended on this machine; resume it (kftrain "
                                       "resume {} --local), delete it or submit with --replace",
                                       name, name),
                           k_exit_bad_input);
    }
    if (!job_active(*existing)) {
        return util::ok_status();
    }
    if (!replace) {
        return util::error(fmt::format("job {} is already running on this machine; delete it "
                                       "or submit with --replace",
                                       name),
                           k_exit_bad_input);
    }
    stop_processes(*existing);
    return util::ok_status();
}

}  // namespace

LocalBackend::LocalBackend(std::ostream& err, std::string kftrain)
    : m_err(err), m_kftrain(kftrain.empty() ? util::self_executable() : std::move(kftrain)) {}

std::unique_ptr<job::Backend> make_local_backend(std::ostream& err) {
    return std::make_unique<LocalBackend>(err);
}

util::Result<std::string> LocalBackend::submit(const job::RenderedJob& job,
                                               const job::SubmitFlags& flags,
                                               job::Reporter& /*report*/) {
    return submit(job, flags);
}

util::Result<std::string> LocalBackend::submit(const job::RenderedJob& job,
                                               const job::SubmitFlags& flags) {
    const manifest::JobSpec& spec = job.spec;
    if (flags.dry_run == job::DryRun::Server) {
        return util::error(
            "--dry-run: server needs a cluster; use --dry-run to print the job "
            "(got server with the local backend)",
            k_exit_bad_input);
    }
    auto from_shell = shell_values(spec, flags.env_from_shell);
    if (!from_shell) {
        return from_shell.error_value();
    }
    auto lock = NameLock::acquire(spec.name, k_lock_wait);
    if (!lock) {
        return lock.error_value();
    }
    // Planned before anything is stopped: a job refused here leaves a running one alone.
    auto context = plan_context(m_kftrain);
    if (!context) {
        return context.error_value();
    }
    auto state = plan_job(job, *context);
    if (!state) {
        return state.error_value();
    }
    auto room = make_room(spec.name, flags.replace);
    if (!room) {
        return room.error_value();
    }
    print_notes(m_err, job, *from_shell);
    auto launch = split_launch(*state, *from_shell);
    auto prepared = prepare_dir(*state, launch, job.code);
    if (!prepared) {
        return prepared.error_value();
    }
    auto started = start_supervisor(spec.name);
    if (!started) {
        return started.error_value();
    }
    if (spec.queue.empty()) {
        return fmt::format("job {} started (local)", spec.name);
    }
    return submitted_to_queue(*state);
}

// Say where a job submitted to a local queue stands: started, or waiting with its place.
std::string LocalBackend::submitted_to_queue(const JobState& planned) {
    auto state = read_job_state(planned.name);
    if (!state) {
        return fmt::format("job {} queued in {} (local)", planned.name, planned.queue);
    }
    const job::QueueStatus queue = local_queue_status(*state, read_queue_members());
    if (queue.state != job::QueueState::Pending) {
        return fmt::format("job {} started (local queue {}: its turn came at once)", planned.name,
                           planned.queue);
    }
    return fmt::format("job {} queued in {} (local{}): it starts when the jobs ahead of it end",
                       planned.name, planned.queue,
                       queue.position ? fmt::format(", position {}", *queue.position) : "");
}

util::Status LocalBackend::start_supervisor(const std::string& job) {
    util::SpawnOptions options;
    options.argv = {m_kftrain, "__supervise", job};
    options.stdin_from = util::Redirect::null();
    options.stdout_to = util::Redirect::null();
    options.stderr_to = util::Redirect::file(supervisor_log_path(job));
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
    ::unlink(launch_path(job).c_str());  // the replicas' secrets go with the failed start
    std::string message = fmt::format("the supervisor of job {} did not start; see {}", job,
                                      supervisor_log_path(job));
    auto state = read_job_state(job);
    if (state) {
        state->phase = "Failed";
        state->reason = "SupervisorFailed";
        state->message = message;
        write_job_state(*state);
    }
    return util::error(message, k_exit_cluster);
}

std::optional<job::Progress> LocalBackend::posted_progress(const std::string& job) {
    auto state = read_job_state(job);
    return state ? posted_progress_of(*state) : std::nullopt;
}

util::Result<job::JobStatus> LocalBackend::status(const std::string& job) {
    auto state = read_job_state(job);
    if (!state) {
        return state.error_value();
    }
    return observed_status(*state, nullptr);
}

job::JobStatus LocalBackend::observed_status(const JobState& state,
                                             const std::vector<QueueMember>* members) {
    const Observed seen = observe_job(state);
    if (!seen.supervisor_alive && !job::is_finished(job::parse_phase(state.phase))) {
        // The supervisor may have saved the job's end and exited between the read of
        // state.json and the look at its pid: read the state again before calling it lost.
        auto again = read_job_state(state.name);
        if (again && job::is_finished(job::parse_phase(again->phase))) {
            return observed_status(*again, members);
        }
    }
    job::JobStatus status = status_from_state(state, seen);
    if (!state.queue.empty()) {
        status.queue =
            local_queue_status(state, members != nullptr ? *members : read_queue_members());
    }
    return status;
}

util::Result<std::vector<job::JobStatus>> LocalBackend::list(bool /*all_namespaces*/) {
    std::vector<job::JobStatus> jobs;
    const std::vector<QueueMember> members = read_queue_members();
    for (const auto& name : job_names()) {
        auto state = read_job_state(name);
        if (state) {
            jobs.push_back(observed_status(*state, &members));
            continue;
        }
        // Never left out: a job whose state cannot be read may still run.
        job::JobStatus unreadable;
        unreadable.name = name;
        unreadable.namespace_ = "default";
        unreadable.backend = manifest::k_backend_local;
        unreadable.reason = "StateUnreadable";
        unreadable.message = state.error();
        jobs.push_back(unreadable);
        m_err << "kftrain: warning: " << state.error() << "\n";
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

util::Result<std::string> LocalBackend::remove(const std::string& job, bool /*wait*/) {
    auto lock = NameLock::acquire(job, k_lock_wait);
    if (!lock) {
        return lock.error_value();
    }
    auto state = read_job_state(job);
    if (!state) {
        return state.error_value();
    }
    stop_processes(*state);
    if (auto removed = remove_dir(job); !removed) {
        return removed.error_value();
    }
    return state->kind;
}

util::Status LocalBackend::force_remove(const std::string& job) {
    auto checked = state::check_job_name(job);
    if (!checked) {
        return checked;
    }
    auto lock = NameLock::acquire(job, k_lock_wait);
    if (!lock) {
        return lock.error_value();
    }
    std::error_code ec;
    if (!fs::is_directory(job_dir(job), ec)) {
        return util::error(
            fmt::format("job {} not found on this machine (no {})", job, job_dir(job)),
            k_exit_not_found);
    }
    auto state = read_job_state(job);
    if (state) {
        stop_processes(*state);
    } else {
        auto text = state::read_state_file(state_path(job));
        stop_processes(salvage_processes(text ? *text : ""));
    }
    return remove_dir(job);
}

util::Status LocalBackend::remove_dir(const std::string& job) {
    return remove_job_folder(job_dir(job));
}

util::Status LocalBackend::stop(const std::string& job) {
    auto state = read_job_state(job);
    if (!state) {
        return state.error_value();
    }
    stop_processes(*state);
    return util::ok_status();
}

util::Result<job::JobDescription> LocalBackend::describe(const std::string& job) {
    auto state = read_job_state(job);
    if (!state) {
        return state.error_value();
    }
    job::JobStatus status = observed_status(*state, nullptr);
    status.why =
        inspect::why_line(*this, status, {}, inspect::k_default_stuck_after_s, std::time(nullptr));
    return job::JobDescription{std::nullopt, describe_parts(*state, status),
                               describe_data(*state, status, std::time(nullptr))};
}

util::Status LocalBackend::set_suspended(const std::string& job, bool suspended) {
    auto lock = NameLock::acquire(job, k_lock_wait);
    if (!lock) {
        return lock.error_value();
    }
    auto state = read_job_state(job);
    if (!state) {
        return state.error_value();
    }
    if (suspended) {
        return request_suspend(*state);
    }
    if (state->phase != "Suspended") {
        return util::ok_status();  // it runs (or has ended): nothing to resume
    }
    if (supervisor_alive(*state)) {
        return util::error(fmt::format("cannot resume job {}: its replicas are still stopping; "
                                       "try again in a moment",
                                       job),
                           k_exit_bad_input);
    }
    ::unlink(suspend_request_path(job).c_str());
    auto written = write_job_state(
        resumed_state(std::move(*state), util::now_timestamp(), util::now_nanoseconds()));
    if (!written) {
        return written;
    }
    return start_supervisor(job);
}

util::Status LocalBackend::scale(const std::string& job, int workers) {
    auto state = read_job_state(job);
    if (!state) {
        return state.error_value();
    }
    return util::error(fmt::format("cannot scale {} to {} Worker replicas: a local job runs the "
                                   "replicas it was submitted with (scale needs a cluster with "
                                   "an elastic PyTorchJob)",
                                   job::job_ref(state->kind, job), workers),
                       k_exit_bad_input);
}

}  // namespace kftrain::backend::local
