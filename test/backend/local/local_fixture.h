#pragma once

// Helpers for the local backend's end-to-end tests: a temporary state
// directory per test, job files running the fake replica, and polling with a
// deadline (never a sleep to wait for something).

#include <catch2/catch.hpp>
#include <chrono>
#include <cstdlib>
#include <functional>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "backend/local/local_backend.h"
#include "backend/local/process/stop.h"
#include "backend/local/state/state_dir.h"
#include "support/cli_runner.h"
#include "support/files.h"
#include "support/paths.h"
#include "util/process_info.h"

namespace kftrain::test {

// A temporary XDG_STATE_HOME for one test (set in this process and in every kftrain it runs).
class LocalJobs {
  public:
    LocalJobs() : m_dir(make_temp_dir()) {
        ::setenv("XDG_STATE_HOME", (m_dir + "/state").c_str(), 1);
        m_backend =
            std::make_unique<backend::local::LocalBackend>(m_err, kftrain::test::kftrain_binary());
    }
    ~LocalJobs() {
        for (const auto& name : backend::local::job_names()) {
            m_backend->force_remove(name);  // also a job whose state a test spoiled
        }
    }

    // Return the temporary directory.
    const std::string& dir() const { return m_dir; }

    // Return the backend, reading the same state as the kftrain the test runs.
    backend::local::LocalBackend& backend() { return *m_backend; }

    // Write a job file running the fake replica with these args; return its path.
    std::string job_file(const std::string& name, int replicas,
                         const std::vector<std::string>& args, const std::string& extra = "") {
        std::string list;
        for (const auto& arg : args) {
            list += (list.empty() ? "" : ", ") + ("\"" + arg + "\"");
        }
        std::string path = m_dir + "/" + name + ".yaml";
        write_file(path, "name: " + name + "\nreplicas: " + std::to_string(replicas) +
                             "\ncommand: [\"" + std::string(kftrain::test::fake_replica()) +
                             "\"]\nargs: [" + list + "]\n" + extra);
        return path;
    }

    // Run kftrain with the test's state directory.
    CliRun kftrain(const std::vector<std::string>& args) {
        return run_kftrain(args, {{"XDG_STATE_HOME", m_dir + "/state"}});
    }

    // Return `kftrain status JOB --local -o json`, parsed (the test fails unless it exits 0).
    nlohmann::json status_json(const std::string& job) {
        const auto run = kftrain({"status", job, "--local", "-o", "json"});
        REQUIRE(run.code == 0);
        return nlohmann::json::parse(run.out);
    }

    // Poll the job's status until pred holds; fail the test after the deadline (a guard
    // against a hang, not a timing: a loaded machine may take many times the usual), saying
    // where the job last was.
    job::JobStatus wait_for(const std::string& job,
                            const std::function<bool(const job::JobStatus&)>& pred,
                            std::chrono::seconds limit = std::chrono::seconds(60)) {
        auto deadline = std::chrono::steady_clock::now() + limit;
        std::string last = "no status";
        while (true) {
            auto status = m_backend->status(job);
            if (status && pred(*status)) {
                return *status;
            }
            if (status) {
                last = describe(*status);
            }
            if (std::chrono::steady_clock::now() > deadline) {
                FAIL("job " << job << " did not reach the expected state in " << limit.count()
                            << "s; last seen: " << last);
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
        }
    }

    // Wait for the job to end (Succeeded or Failed) and its supervisor to exit. Real training
    // under the sanitizers on a busy machine is slow: the guard is minutes.
    job::JobStatus wait_finished(const std::string& job,
                                 std::chrono::seconds limit = std::chrono::seconds(240)) {
        return wait_for(
            job,
            [&](const job::JobStatus& s) {
                auto state = backend::local::read_job_state(job);
                return job::is_finished(s.phase) && state &&
                       !backend::local::supervisor_alive(*state);
            },
            limit);
    }

    // Return every log line of a job as "replica | text".
    std::vector<std::string> log_lines(const std::string& job, job::LogOptions options = {}) {
        std::vector<std::string> lines;
        auto read = m_backend->logs(job, options, [&](const job::LogLine& line) {
            lines.push_back(line.replica + " | " + line.text);
        });
        REQUIRE(read.ok());
        return lines;
    }

  private:
    // One line of where a job is: its phase, step and message.
    static std::string describe(const job::JobStatus& status) {
        std::ostringstream out;
        out << job::phase_name(status.phase);
        if (status.progress && status.progress->step) {
            out << " at step " << *status.progress->step;
        }
        if (!status.message.empty()) {
            out << " (" << status.message << ")";
        }
        return out.str();
    }

    std::string m_dir;
    std::ostringstream m_err;
    std::unique_ptr<backend::local::LocalBackend> m_backend;
};

// Return whether the job runs with every replica Running under a process of its own.
inline bool all_replicas_running(const job::JobStatus& s) {
    if (s.replicas.empty()) {
        return false;
    }
    for (const auto& r : s.replicas) {
        if (r.state != "Running" || r.pid == 0) {
            return false;
        }
    }
    return s.phase == job::JobPhase::Running;
}

// Return whether any line contains the text.
inline bool contains_line(const std::vector<std::string>& lines, const std::string& text) {
    for (const auto& line : lines) {
        if (line.find(text) != std::string::npos) {
            return true;
        }
    }
    return false;
}

}  // namespace kftrain::test
