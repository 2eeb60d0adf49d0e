#pragma once

#include <map>
#include <string>
#include <vector>

#include "support/cli_runner.h"
#include "support/text.h"

namespace kftrain::test {

// The fake kubectl (test/fakes/kubectl) playing one scenario from
// test/data/kube/scenarios, with its calls recorded in a fresh directory.
class FakeCluster {
  public:
    // Play scenarios/<name>.json, or the scenario file at this absolute path.
    explicit FakeCluster(const std::string& scenario);
    // Play a running PyTorchJob "big" in ml-training of 1 Master and this many Workers
    // (test/fakes/many_replicas.py), with these worker indices failed, crash-looping, pending;
    // with ends, the job reads Succeeded from its second get by name on.
    static FakeCluster many_replicas(int workers, const std::vector<int>& failed = {},
                                     const std::vector<int>& restarting = {},
                                     const std::vector<int>& pending = {}, bool ends = false);

    // Return the environment that points kftrain at the fake.
    std::map<std::string, std::string> env() const;
    // Run the built kftrain against the fake.
    CliRun run(const std::vector<std::string>& args) const;
    // Return the argv of every kubectl call so far, in order.
    std::vector<std::vector<std::string>> calls() const;
    // Return the argv of every `logs` call for one pod so far, in order.
    std::vector<std::vector<std::string>> logs_calls(const std::string& pod) const;
    // Return the argv of every `logs -f` call for one pod ("": any pod) so far, in order: what a
    // follower read, without the reads that record the job once it has ended.
    std::vector<std::vector<std::string>> follow_calls(const std::string& pod) const;
    // Return the stdin of every `apply` so far.
    std::vector<std::string> applied() const;
    // Return the most `logs` calls the fake saw running at once.
    int max_concurrent_logs() const;
    // Return the state directory kftrain keeps its records in (XDG_STATE_HOME): a fresh one per
    // fake, so no test reads another's records nor leaves one in the user's.
    const std::string& state_dir() const { return m_state; }
    // Share another fake's state directory: the same user against another cluster's answers
    // (a job recorded there, gone here).
    void use_state_dir(const std::string& dir) { m_state = dir; }

  private:
    std::string m_scenario;
    std::string m_record;
    std::string m_state;
};

// The uid of mnist-ddp, the PyTorchJob of the recorded cluster answers under test/data/kube.
inline constexpr const char* k_mnist_ddp_uid = "6c1b7f0e-2f57-4a8e-9d43-1f0c3b7f2a10";

// The one get kftrain makes to find a job of any kind by name, or to list them.
inline constexpr const char* k_job_resources =
    "pytorchjobs.kubeflow.org,trainjobs.trainer.kubeflow.org,tfjobs.kubeflow.org,"
    "xgboostjobs.kubeflow.org,jaxjobs.kubeflow.org";

}  // namespace kftrain::test
