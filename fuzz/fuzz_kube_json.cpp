// Fuzz the readers of kubectl's JSON: the input is read as `kubectl get pytorchjob -o json`,
// as a TrainJob, as `kubectl get pods -o json` and as `kubectl get events -o json`, and the
// job's status is settled with the pods and diagnosed with the events, as `kftrain status`
// and `describe` do. Property: nothing throws or crashes, whatever the text.

#include <set>
#include <string>

#include "cli/job/trainer_status.h"
#include "cli/kube/job_reader.h"
#include "cli/kube/json_fields.h"
#include "cli/kube/status/events.h"
#include "cli/kube/status/pods.h"
#include "cli/kube/status/status.h"
#include "cli/kube/status/trainjob_status.h"
#include "fuzz_input.h"

using namespace kftrain;
using namespace kftrain::cli;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    (void)kube::parse_job_status(text);
    (void)kube::status_selectors(text);
    const std::set<std::string> objects{"mnist", "mnist-master-0", "mnist-worker-0",
                                        "mnist-node-0-0-abcde"};
    const auto events = kube::parse_events(text, objects);
    auto pods = kube::parse_pods(text, "mnist");
    auto object = kube::parse_json_object(text);
    if (!object.ok()) {
        return 0;
    }
    for (auto kind : {manifest::JobKind::PyTorchJob, manifest::JobKind::TrainJob}) {
        const auto& reader = kube::job_reader(kind);
        job::JobStatus status = reader.status_from(*object);
        (void)reader.pod_selectors(*object);
        if (pods.ok()) {
            status.replicas = *pods;
            for (const auto& replica : status.replicas) {
                (void)kube::has_started(replica);
                (void)kube::needs_events(replica);
            }
        }
        reader.settle(status);
        (void)kube::diagnose(status, events);
    }
    (void)kftrain::cli::job::trainer_status_progress(
        kube::member(kube::member(*object, "status"), "trainerStatus"));
    return 0;
}
