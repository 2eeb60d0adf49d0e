#pragma once

// What the cluster suite's tests share: kubectl against the minicluster that test/e2e/run.sh
// started, a namespace of their own, polling with a deadline, and job files of the images
// run.sh imported. The tests run only under run.sh (make e2e), which sets the environment.

#include <chrono>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "support/cli_runner.h"

namespace kftrain::e2e {

using test::CliRun;

// The images run.sh imported into the cluster's containerd.
std::string trainer_image();
std::string busybox_image();
std::string python_image();  // Debian's python3 and tqdm, no torch

// Run kubectl (KUBECONFIG as run.sh set it) with these arguments.
CliRun kubectl(const std::vector<std::string>& args, const std::string& input = "");

// Run the built kftrain against the cluster, with -n namespace_ before the verb.
CliRun kftrain(const std::string& namespace_, std::vector<std::string> args);

// One namespace per test case: created (with its default service account) on construction,
// deleted (without waiting) on destruction.
class Namespace {
  public:
    explicit Namespace(const std::string& prefix);
    ~Namespace();
    Namespace(const Namespace&) = delete;
    Namespace& operator=(const Namespace&) = delete;
    const std::string& name() const { return m_name; }
    // kftrain with -n this namespace.
    CliRun kftrain(const std::vector<std::string>& args) const;
    // kubectl with -n this namespace.
    CliRun kubectl(std::vector<std::string> args, const std::string& input = "") const;
    // kftrain submit of this job file with these flags (fails the test unless it succeeds).
    void submit(const std::string& job_file_text, const std::vector<std::string>& flags = {}) const;
    // kubectl apply -f - of this manifest, in this namespace (fails the test if refused).
    void apply(const std::string& manifest) const;

  private:
    std::string m_name;
};

// Call check every half second until it returns true; fail the test, saying what was awaited
// and what the last look printed (last, set by check), when the deadline passes first.
void poll_until(const std::string& what, std::chrono::seconds deadline,
                const std::function<bool(std::string& last)>& check);

// A job file of the trainer image: small CPU and memory requests, a few seconds of synthetic
// training; extra is appended as it is (YAML lines at the top level).
std::string trainer_job(const std::string& name, const std::string& kind, int replicas,
                        const std::string& extra = "");

// Write text to a new file in a fresh temporary directory and return its path.
std::string write_temp(const std::string& file_name, const std::string& text);

// A PersistentVolume at a fresh directory of this machine (the node), made writable by every
// user, and a claim in the namespace bound to it; returns the directory.
std::string make_host_claim(const Namespace& ns, const std::string& claim);

// The pods of a namespace: "name phase" lines.
std::string pods_of(const Namespace& ns);

}  // namespace kftrain::e2e
