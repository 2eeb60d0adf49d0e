#include "backend/local/process/supervisor.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <filesystem>
#include <iostream>

#include "backend/local/process/clean_env.h"
#include "backend/local/process/command_line.h"
#include "backend/local/process/replica_env.h"
#include "backend/local/queue/queue_members.h"
#include "backend/local/state/last_word.h"
#include "backend/local/state/name_lock.h"
#include "backend/local/state/state_dir.h"
#include "backend/local/suspend.h"
#include "manifest/k8s/expansion.h"
#include "manifest/render/metrics_scrape.h"
#include "util/process_info.h"

namespace kftrain::backend::local {
namespace {

// A replica's reason for an exit of its own, as the kubelet's: Completed, Error, or Signal.
const char* exit_reason(int code) {
    return code == 0 ? "Completed" : code > 128 ? "Signal" : "Error";
}

// Say where a resumed replica goes on, from its command: kftrain-trainer resumes from its
// newest checkpoint only where it writes them (--checkpoint-dir, from trainer.checkpointDir);
// what another program does is its own.
std::string resume_point(const std::vector<std::string>& argv) {
    if (argv.empty() || std::filesystem::path(argv.front()).filename() != "kftrain-trainer") {
        return "(its program goes on from where it saved, if it saves)";
    }
    const bool checkpoints = std::any_of(argv.begin(), argv.end(), [](const std::string& arg) {
        return arg == "--checkpoint-dir" || arg.rfind("--checkpoint-dir=", 0) == 0;
    });
    return checkpoints ? "from its newest checkpoint"
                       : "from step 0: it writes no checkpoints (set trainer.checkpointDir)";
}

constexpr auto k_stop_grace = std::chrono::seconds(10);
constexpr auto k_success_grace = std::chrono::seconds(10);
constexpr int k_poll_ms = 100;
constexpr int k_queue_poll_ms = 250;  // how often a job waiting in a queue looks at the others
constexpr auto k_queue_lock_wait = std::chrono::seconds(10);

// The lock a queue's supervisors take to decide whose turn it is: not a job name (a dot).
std::string queue_lock_name(const std::string& queue) {
    return "queue." + queue;
}

volatile std::sig_atomic_t g_stop_requested = 0;

void on_stop_signal(int) {
    g_stop_requested = 1;
}

void install_signal_handlers() {
    struct sigaction action {};
    action.sa_handler = on_stop_signal;
    sigemptyset(&action.sa_mask);
    ::sigaction(SIGTERM, &action, nullptr);
    ::sigaction(SIGINT, &action, nullptr);
    std::signal(SIGHUP, SIG_IGN);
    std::signal(SIGPIPE, SIG_IGN);
}

}  // namespace

Supervisor::Supervisor(JobState state, std::vector<ReplicaLaunch> launch)
    : m_state(std::move(state)),
      m_launch(std::move(launch)),
      m_slots(m_state.replicas.size()),
      m_log(m_state.name) {
    if (m_launch.size() != m_state.replicas.size()) {
        m_launch.clear();
        for (const auto& replica : m_state.replicas) {
            m_launch.push_back({replica.argv, replica.env});
        }
    }
    m_rules.policy = m_state.restart_policy;
    m_rules.backoff_limit = m_state.backoff_limit;
    m_rules.trainjob = m_state.kind == "TrainJob";
    m_rules.max_restarts = m_state.max_restarts;
    m_rules.kind = m_state.kind;
}

void Supervisor::start_replica(size_t i) {
    ReplicaState& replica = m_state.replicas[i];
    Slot& slot = m_slots[i];
    util::SpawnOptions options;
    options.env = m_launch[i].env;
    // $(NAME) in the command and args, as the kubelet expands them from the container's env
    // (the operator's variables, with the ports this start was given, included).
    for (const auto& arg : m_launch[i].argv) {
        options.argv.push_back(manifest::expand_references(arg, options.env));
    }
    options.unset_env = names_to_unset(current_environment(), options.env);
    const std::string mark = replica_mark(i);
    options.env[mark.substr(0, mark.find('='))] = mark.substr(mark.find('=') + 1);
    options.cwd = m_state.cwd;
    options.new_session = true;
    slot.restart_at.reset();
    auto process = util::Process::spawn(options);
    if (!replica.started.empty()) {  // a restart: keep the last attempt for logs --previous
        replica.previous_started = replica.started;
        replica.previous_finished = replica.finished;
    }
    replica.started = util::now_timestamp();
    replica.finished.clear();
    if (!process) {
        m_log.append(replica.name, "kftrain: error: " + process.error());
        replica.pid = 0;
        on_exit(i, 127);
        return;
    }
    slot.process = std::move(*process);
    slot.stopped = false;
    for (Stream* stream : {&slot.out, &slot.err}) {
        stream->fd = stream == &slot.out ? slot.process->stdout_fd() : slot.process->stderr_fd();
        stream->partial.clear();
        stream->open = stream->fd >= 0;
        ::fcntl(stream->fd, F_SETFL, ::fcntl(stream->fd, F_GETFL) | O_NONBLOCK);
    }
    replica.pid = slot.process->pid();
    replica.start_ticks = util::process_start_ticks(replica.pid).value_or(0);
    replica.state = "Running";
    replica.reason.clear();
    m_dirty = true;
}

void Supervisor::reap() {
    for (size_t i = 0; i < m_slots.size(); ++i) {
        Slot& slot = m_slots[i];
        if (!slot.process) {
            continue;
        }
        auto status = slot.process->try_wait();
        if (!status) {
            continue;
        }
        read_stream(i, slot.out);
        read_stream(i, slot.err);
        ::kill(-slot.process->pid(), SIGKILL);  // whatever the replica left in its group
        slot.out.open = slot.err.open = false;
        slot.process.reset();
        kill_orphans(replica_mark(i));  // and what left its group: the run is over
        on_exit(i, status->as_shell_code());
    }
    reap_orphans();
}

void Supervisor::on_exit(size_t i, int code) {
    ReplicaState& replica = m_state.replicas[i];
    replica.exit_code = code;
    replica.finished = util::now_timestamp();
    m_dirty = true;
    if (m_outcome) {
        // The job is stopping. A replica the supervisor had not signalled yet ended on its own
        // (a worker failing beside the Master is Failed, not Stopped); one it had signalled is
        // Terminated, Stopped (or Suspended) where the signal ended it (a code above 128: a
        // trainer's 143, a death by the signal), else by what it said (Error: it was failing
        // anyway).
        const bool signalled = m_slots[i].stopped;
        replica.state = code == 0 ? "Succeeded" : signalled ? "Terminated" : "Failed";
        replica.reason = code == 0 || !signalled || code <= 128 ? exit_reason(code)
                         : m_outcome->phase == "Suspended"      ? "Suspended"
                                                                : "Stopped";
        return;
    }
    if (m_restarting_job) {  // stopped for the job's restart, or ending meanwhile on its own
        replica.state = "Restarting";
        replica.reason = m_slots[i].stopped ? "Stopped" : exit_reason(code);
        restart_job_when_stopped();
        return;
    }
    // A TrainJob (JobSet) or a JAXJob succeeds when every replica has; a PyTorchJob or an
    // XGBoostJob when its Master has.
    ReplicaExit exit{replica.name, decides_success(m_state, replica), code};
    apply(i, decide_exit(m_rules, exit,
                         m_rules.trainjob ? m_state.job_restarts : total_restarts(m_state)));
}

void Supervisor::apply(size_t i, const ExitDecision& decision) {
    ReplicaState& replica = m_state.replicas[i];
    const int code = replica.exit_code.value_or(0);
    replica.reason = exit_reason(code);
    switch (decision.action) {
        case ExitAction::Finish:
            replica.state = "Succeeded";
            return;
        case ExitAction::Restart: {
            int delay = restart_delay_seconds(replica.restarts);
            replica.state = "Restarting";
            replica.restarts += 1;
            m_slots[i].restart_at = Clock::now() + std::chrono::seconds(delay);
            m_state.phase = "Restarting";
            m_log.append(replica.name, fmt::format("kftrain: {} exited with code {}; restarting "
                                                   "in {}s (restart {})",
                                                   replica.name, code, delay, replica.restarts));
            return;
        }
        case ExitAction::RestartJob:
            replica.state = "Restarting";
            m_state.phase = "Restarting";
            m_state.job_restarts += 1;
            m_restarting_job = true;
            m_term_at = Clock::now();  // advance_stop ends the others: TERM, then KILL
            m_log.append(replica.name,
                         fmt::format("kftrain: {} exited with code {}; restarting the job "
                                     "(restart {} of {})",
                                     replica.name, code, m_state.job_restarts,
                                     m_rules.max_restarts.value_or(0)));
            restart_job_when_stopped();
            return;
        case ExitAction::SucceedJob:
            replica.state = "Succeeded";
            begin_stop({"Succeeded", decision.reason, decision.message}, false);
            return;
        case ExitAction::FailJob:
            replica.state = "Failed";
            begin_stop({"Failed", decision.reason, decision.message}, true);
            return;
    }
}

void Supervisor::begin_stop(Outcome outcome, bool immediately) {
    m_outcome = std::move(outcome);
    auto now = Clock::now();
    m_term_at = immediately ? now : now + k_success_grace;
    for (size_t i = 0; i < m_slots.size(); ++i) {
        if (m_slots[i].restart_at) {
            m_slots[i].restart_at.reset();
            m_state.replicas[i].state = "Terminated";
            m_state.replicas[i].reason = "Stopped";
        }
    }
    m_dirty = true;
}

void Supervisor::advance_stop() {
    auto now = Clock::now();
    if (m_term_at && now >= *m_term_at) {
        for (auto& slot : m_slots) {
            if (slot.process) {
                slot.process->signal(SIGTERM);
                slot.stopped = true;
            }
        }
        m_term_at.reset();
        m_kill_at = now + k_stop_grace;
    }
    if (m_kill_at && now >= *m_kill_at) {
        for (auto& slot : m_slots) {
            if (slot.process) {
                slot.process->signal(SIGKILL);
            }
        }
        m_kill_at.reset();
    }
}

void Supervisor::check_deadline() {
    if (m_outcome || !m_state.active_deadline_seconds) {
        return;
    }
    auto limit = std::chrono::seconds(*m_state.active_deadline_seconds);
    if (Clock::now() - m_started >= limit) {
        begin_stop({"Failed", "DeadlineExceeded",
                    fmt::format("the job ran longer than activeDeadlineSeconds ({}s)",
                                *m_state.active_deadline_seconds)},
                   true);
    }
}

bool Supervisor::any_running() const {
    for (const auto& slot : m_slots) {
        if (slot.process || slot.restart_at) {
            return true;
        }
    }
    return false;
}

bool Supervisor::wait_for_turn() {
    if (m_state.queue.empty()) {
        return true;
    }
    bool in_line = false;
    while (!g_stop_requested) {
        {
            // The supervisors of a queue decide and record their turn one at a time, so two
            // never both take it; submit reports what the first decision recorded.
            auto lock = NameLock::acquire(queue_lock_name(m_state.queue), k_queue_lock_wait);
            if (lock && turn_has_come(read_queue_members(), m_state.name)) {
                m_state.admitted = util::now_timestamp();
                save(true);
                return true;
            }
            if (!in_line) {
                save(true);  // with the supervisor's pid: the job is in line
                in_line = true;
            }
        }
        ::usleep(static_cast<useconds_t>(k_queue_poll_ms) * 1000);  // a stop signal cuts it short
    }
    return false;
}

void Supervisor::take_fresh_ports() {
    auto master = util::free_port();
    auto rdzv = util::free_port();
    if (!master || !rdzv) {
        std::cerr << "kftrain supervisor: keeping the ports chosen at submit: "
                  << (master ? rdzv.error() : master.error()) << std::endl;
        return;
    }
    Ports ports{*master, *rdzv};
    const auto kind = manifest::parse_kind(m_state.kind).value_or(manifest::JobKind::PyTorchJob);
    if (kind == manifest::JobKind::TFJob) {
        // Every replica of TF_CONFIG listens at a port of its own.
        auto tasks = util::free_ports(static_cast<int>(m_launch.size()));
        ports.tasks = tasks ? *tasks : 0;
    }
    const auto framework =
        manifest::parse_framework(m_state.framework).value_or(manifest::Framework::torch);
    for (size_t i = 0; i < m_launch.size(); ++i) {
        set_ports(m_launch[i].env, kind, framework, ports);
        set_ports(m_state.replicas[i].env, kind, framework, ports);
    }
    m_state.master_port = ports.master;
}

void Supervisor::take_metrics_ports() {
    // Every replica serves its metrics on this machine: each gets ports of its own, one per
    // local process.
    for (size_t i = 0; i < m_launch.size(); ++i) {
        ReplicaState& replica = m_state.replicas[i];
        if (replica.metrics_port == 0) {
            continue;
        }
        auto port = util::free_ports(std::max(replica.metrics_processes, 1));
        if (!port) {
            std::cerr << "kftrain supervisor: " << replica.name
                      << " keeps its metrics port: " << port.error() << std::endl;
            continue;
        }
        set_metrics_port(m_launch[i].argv, *port);
        set_metrics_port(replica.argv, *port);
        m_launch[i].env[manifest::k_metrics_port_env] = std::to_string(*port);
        replica.env[manifest::k_metrics_port_env] = std::to_string(*port);
        replica.metrics_port = *port;
    }
}

void Supervisor::supervise() {
    take_fresh_ports();
    take_metrics_ports();
    start_status_server();
    m_started = Clock::now();
    m_state.started = util::now_timestamp();
    m_state.phase = "Running";
    for (size_t i = 0; i < m_slots.size() && !m_outcome; ++i) {
        start_replica(i);
    }
    save(true);
    while (any_running()) {
        if (g_stop_requested && !m_outcome) {
            begin_stop(stop_outcome(), true);
        }
        pump(k_poll_ms);
        take_posted_status();
        reap();
        check_deadline();
        if (m_outcome || m_restarting_job) {
            advance_stop();
        } else {
            start_due_restarts();
        }
        save(false);
    }
    kill_orphans();  // no replica runs: nothing the job started may go on
}

int Supervisor::run() {
    install_signal_handlers();
    adopt_orphans();
    m_state.supervisor_pid = ::getpid();
    m_state.supervisor_ticks = util::process_start_ticks(m_state.supervisor_pid).value_or(0);
    if (wait_for_turn()) {
        supervise();
        take_posted_status();
        m_status_server.reset();
    } else {
        leave_queue();
    }
    if (!m_outcome) {
        m_outcome =
            m_state.kind == "TrainJob"
                ? Outcome{"Succeeded", "AllJobsCompleted", "every node completed"}
                : Outcome{"Succeeded", m_state.kind + "Succeeded", "every replica completed"};
    }
    m_state.phase = m_outcome->phase;
    m_state.reason = m_outcome->reason;
    m_state.message = m_outcome->message;
    if (m_state.phase == "Suspended") {
        return finish_suspended();
    }
    m_state.finished = util::now_timestamp();
    save_final();
    return m_state.phase == "Succeeded" ? 0 : 1;
}

void Supervisor::leave_queue() {
    m_outcome = stop_outcome();
    for (auto& replica : m_state.replicas) {
        replica.state = "Terminated";  // never started: nothing holds resources
        replica.reason = m_outcome->phase == "Suspended" ? "Suspended" : "Stopped";
    }
}

Supervisor::Outcome Supervisor::stop_outcome() const {
    return suspend_requested(m_state.name)
               ? suspended_outcome()
               : Outcome{"Failed", "Stopped", "stopped on request (kftrain delete or interrupt)"};
}

Supervisor::Outcome Supervisor::suspended_outcome() const {
    const bool trainjob = m_state.kind == "TrainJob";
    return {"Suspended", trainjob ? "Suspended" : m_state.kind + "Suspended",
            fmt::format("suspended by kftrain suspend; kftrain resume {} --local starts it again "
                        "{}",
                        m_state.name,
                        resume_point(m_launch.empty() ? std::vector<std::string>{}
                                                      : m_launch.front().argv))};
}

int Supervisor::finish_suspended() {
    // resume starts a supervisor again: it needs the replicas' launch, secrets included.
    auto kept = util::write_file_atomic(launch_path(m_state.name), launch_json(m_launch));
    if (!kept) {
        std::cerr << "kftrain supervisor: " << kept.error() << std::endl;
    }
    m_state.suspended = util::now_timestamp();
    save_final();
    ::unlink(suspend_request_path(m_state.name).c_str());
    return 0;
}

int run_supervisor(const std::string& job) {
    auto state = read_job_state(job);
    if (!state) {
        std::cerr << "kftrain supervisor: " << state.error() << std::endl;
        return 1;
    }
    auto launch = take_launch(job);
    if (!launch) {
        std::cerr << "kftrain supervisor: " << launch.error() << std::endl;
        return 1;
    }
    Supervisor supervisor(std::move(*state), std::move(*launch));
    return supervisor.run();
}

}  // namespace kftrain::backend::local
