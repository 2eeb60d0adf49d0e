// Fuzz the reader of Katib's JSON: the input is `kubectl get experiments.kubeflow.org NAME
// -o json`, then a NUL byte and `kubectl get trials.kubeflow.org -o json` (an empty List when
// there is no NUL). Property: nothing throws or crashes; a search that reads has one job per
// trial.

#include <string>

#include "backend/kube/search/experiment_reader.h"
#include "fuzz_input.h"

using namespace kftrain;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
    const auto parts = fuzz::split_nul(data, size);
    const std::string trials =
        parts.size() > 1 ? parts[1] : std::string(R"({"kind": "List", "items": []})");
    auto search = backend::kube::read_cluster_search(parts[0], trials);
    if (search.ok() && search->trial_jobs.size() != search->status.trials.size()) {
        fuzz::fail("trial_jobs and status.trials differ in size");
    }
    return 0;
}
