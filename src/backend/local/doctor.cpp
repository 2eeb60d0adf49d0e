#include "backend/local/doctor.h"

#include <fmt/format.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "backend/local/process/command_line.h"
#include "backend/local/python_program.h"
#include "backend/local/queue/local_queue.h"
#include "backend/local/queue/queue_members.h"
#include "cost/job_sizing.h"
#include "doctor/fit.h"
#include "manifest/render/template_values.h"
#include "state/state_files.h"
#include "util/files.h"
#include "util/process_info.h"
#include "util/run.h"
#include "util/text.h"

namespace kftrain::backend::local {
namespace {

using doctor::check;
using doctor::Check;
using doctor::State;
namespace fs = std::filesystem;

doctor::Node this_machine() {
    doctor::Node node;
    node.name = "this machine";
    node.cpu = static_cast<double>(::sysconf(_SC_NPROCESSORS_ONLN));
    node.memory = static_cast<double>(::sysconf(_SC_PHYS_PAGES)) *
                  static_cast<double>(::sysconf(_SC_PAGESIZE));
    return node;
}

std::string program_of(const manifest::JobSpec* job) {
    return job == nullptr || job->command.empty() ? manifest::k_trainer_command
                                                  : job->command.front();
}

// Return the job's command and its args, as one list of words.
std::vector<std::string> words_of(const manifest::JobSpec& job) {
    std::vector<std::string> words = job.command;
    if (job.args) {
        words.insert(words.end(), job.args->begin(), job.args->end());
    }
    return words;
}

Check program_check(const manifest::JobSpec* job, const std::string& kftrain) {
    const std::string program = program_of(job);
    const bool trainer = program == manifest::k_trainer_command;
    auto found = resolve_command(program, fs::path(kftrain).parent_path().string());
    const std::string name = trainer ? "kftrain-trainer" : "command " + program;
    if (found) {
        return check("local", name, State::Ok, util::escape_line(*found), "", job != nullptr);
    }
    return check("local", name, State::Missing,
                 trainer ? "not beside kftrain nor on PATH" : "not found on PATH",
                 trainer ? "make build (it is built beside kftrain), or put kftrain-trainer on PATH"
                         : "install it, or name it by its path in the job file's command",
                 job != nullptr);
}

Check torch_check(const std::string& python, bool needed) {
    util::RunOptions options;
    options.argv = {python, "-c", "import torch; print(torch.__version__)"};
    options.timeout = std::chrono::seconds(60);
    auto run = util::run(options);
    // The interpreter checked, by the path it resolves to where that says more.
    const auto resolved = resolve_command(python, "");
    const std::string name =
        "torch in " + python + (resolved && *resolved != python ? " (" + *resolved + ")" : "");
    if (run && run->status.as_shell_code() == 0) {
        return check("local", name, State::Ok, "torch " + util::escape_line(util::trim(run->out)),
                     "", needed);
    }
    std::string why = run ? util::trim(run->err) : run.error();
    const auto last = why.rfind('\n');
    why = last == std::string::npos ? why : why.substr(last + 1);  // the exception's line
    return check("local", name, State::Missing,
                 util::escape_line(util::excerpt(why.empty() ? "cannot import torch" : why, 160)),
                 "apt-get install python3-torch, or pip install torch for that python3 (docs/"
                 "local-backend.md)",
                 needed);
}

Check state_check() {
    const std::string root = state::state_root();
    std::error_code ec;
    fs::create_directories(root, ec);
    const std::string probe = root + "/.doctor-" + std::to_string(::getpid());
    std::ofstream out(probe);
    const bool written = out && (out << "ok").flush();
    out.close();
    fs::remove(probe, ec);
    if (written) {
        return check("local", "state directory", State::Ok,
                     util::escape_line(root) + " (writable)");
    }
    return check("local", "state directory", State::Failed,
                 util::escape_line(root) + ": cannot write there",
                 "set XDG_STATE_HOME to a writable folder, or free the disk");
}

Check ports_check() {
    auto ports = util::free_ports(2);
    if (ports) {
        return check("local", "free ports", State::Ok,
                     "a replica's rendezvous and status ports can be had on 127.0.0.1");
    }
    return check("local", "free ports", State::Failed, util::escape_line(ports.error()),
                 "free some ports, or stop the jobs that hold them (kftrain list --local)");
}

Check queue_check(const manifest::JobSpec* job) {
    const auto queues = local_queues(read_queue_members());
    std::vector<std::string> parts;
    for (const auto& queue : queues) {
        parts.push_back(
            fmt::format("{}: {} running, {} waiting", queue.name, queue.admitted, queue.pending));
    }
    std::string found =
        parts.empty() ? "no local queue in use" : fmt::format("{}", fmt::join(parts, "; "));
    if (job != nullptr && !job->queue.empty()) {
        found = "the job waits in " + job->queue + " for its turn; " + found;
    }
    return check("local", "local queues", State::Ok, util::escape_line(found), "", false);
}

Check machine_fit(const manifest::JobSpec& job, const doctor::Node& machine) {
    const doctor::Request each = doctor::replica_request(job);
    const double cpus = each.cpu * job.replicas;
    if (each.gpus > 0) {
        return check("local", "fits on this machine", State::Warning,
                     fmt::format("each replica asks {} GPUs; here replicas get no GPU assigned "
                                 "(they see the machine's devices as they are)",
                                 each.gpus),
                     "", false);
    }
    if (cpus > machine.cpu || each.memory * job.replicas > machine.memory) {
        return check("local", "fits on this machine", State::Warning,
                     fmt::format("{} replicas ask {:g} CPUs and {:.1f} GiB in all; this machine "
                                 "has {:g} and {:.1f} GiB: they share them (slower, not refused)",
                                 job.replicas, cpus, each.memory * job.replicas / (1 << 30),
                                 machine.cpu, machine.memory / (1 << 30)),
                     "fewer replicas or smaller requests for a local run", false);
    }
    return check("local", "fits on this machine", State::Ok,
                 fmt::format("{} replicas ask {:g} CPUs in all of its {:g}", job.replicas, cpus,
                             machine.cpu));
}

}  // namespace

doctor::Report local_doctor(const job::DoctorRequest& request, const std::string& kftrain) {
    const manifest::JobSpec* job = request.job ? &*request.job : nullptr;
    const doctor::Node machine = this_machine();
    doctor::Report report;
    report.checks.push_back(
        check("local", "this machine", State::Ok, doctor::node_capacity(machine)));
    report.checks.push_back(program_check(job, kftrain));
    if (job == nullptr) {
        report.checks.push_back(torch_check("python3", false));
    } else if (auto python = python_program(words_of(*job), request.folder)) {
        report.checks.push_back(
            torch_check(python->interpreter, script_imports_torch(*python, request.folder)));
    }
    report.checks.push_back(ports_check());
    report.checks.push_back(state_check());
    report.checks.push_back(queue_check(job));
    if (job != nullptr) {
        report.checks.push_back(machine_fit(*job, machine));
        report.checks.push_back(cost::measured_use_check(*job, false));
    }
    report.verdict = doctor::verdict(report.checks, job != nullptr, true);
    return report;
}

}  // namespace kftrain::backend::local
