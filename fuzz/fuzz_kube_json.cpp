// Fuzz the readers of kubectl's JSON: the input is read as `kubectl get pytorchjob -o json`,
// as a TrainJob, as `kubectl get pods -o json` and as `kubectl get events -o json`, and the
// job's status is settled with the pods and diagnosed with the events, as `kftrain status`
// and `describe` do. Property: nothing throws or crashes, whatever the text.

#include <set>
#include <string>

#include "backend/kube/job_reader.h"
#include "backend/kube/json_fields.h"
#include "backend/kube/status/events.h"
#include "backend/kube/status/pods.h"
#include "backend/kube/status/status.h"
#include "backend/kube/status/trainjob_status.h"
#include "fuzz_input.h"
#include "progress/trainer_status.h"

using namespace kftrain;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    (void)backend::kube::parse_job_status(text);
    (void)backend::kube::status_selectors(text);
    const std::set<std::string> objects{"mnist", "mnist-master-0", "mnist-worker-0",
                                        "mnist-node-0-0-abcde"};
    const auto events = backend::kube::parse_events(text, objects);
    auto pods = backend::kube::parse_pods(text, "mnist");
    auto object = backend::kube::parse_json_object(text);
    if (!object.ok()) {
        return 0;
    }
    for (auto kind : {manifest::JobKind::PyTorchJob, manifest::JobKind::TrainJob}) {
        const auto& reader = backend::kube::job_reader(kind);
        job::JobStatus status = reader.status_from(*object);
        (void)reader.pod_selectors(*object);
        if (pods.ok()) {
            status.replicas = *pods;
            for (const auto& replica : status.replicas) {
                (void)backend::kube::has_started(replica);
                (void)backend::kube::needs_events(replica);
            }
        }
        reader.settle(status);
        (void)backend::kube::diagnose(status, events);
    }
    (void)kftrain::progress::trainer_status_progress(
        backend::kube::member(backend::kube::member(*object, "status"), "trainerStatus"));
    return 0;
}
