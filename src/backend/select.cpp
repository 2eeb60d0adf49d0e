#include "backend/select.h"

#include <fmt/format.h>

#include <cstdlib>
#include <filesystem>

#include "backend/history_backend.h"
#include "backend/kube/backend.h"
#include "backend/kube/history/gather.h"
#include "backend/kube/kubectl.h"
#include "backend/kube/measure/cluster_measure.h"
#include "backend/kube/search/kube_search.h"
#include "backend/local/local_backend.h"
#include "backend/local/measure/program_measure.h"
#include "backend/local/process/supervisor.h"
#include "backend/local/search/local_search.h"
#include "job/backend.h"
#include "job/exit_codes.h"
#include "state/state_files.h"

namespace kftrain::backend {
namespace {

bool is_file(const std::string& path) {
    std::error_code ec;
    return !path.empty() && std::filesystem::is_regular_file(path, ec) &&
           std::filesystem::file_size(path, ec) > 0;
}

// Return whether kubectl would find a cluster: --kubeconfig, a non-empty file
// named by KUBECONFIG, ~/.kube/config, KFTRAIN_KUBECTL naming a kubectl, or a pod's own
// (KUBERNETES_SERVICE_HOST, which the kubelet sets in every container: kubectl then uses the
// pod's service account, as in a pipeline step).
bool cluster_configured(const job::BackendOptions& global) {
    if (!global.kubeconfig.empty() || !global.context.empty()) {
        return true;
    }
    const char* in_pod = std::getenv("KUBERNETES_SERVICE_HOST");
    if (in_pod != nullptr && *in_pod != '\0') {
        return true;
    }
    const char* kubectl = std::getenv("KFTRAIN_KUBECTL");
    if (kubectl != nullptr && *kubectl != '\0') {
        return true;
    }
    const char* list = std::getenv("KUBECONFIG");
    if (list != nullptr && *list != '\0') {
        std::string paths = list;
        size_t start = 0;
        while (start <= paths.size()) {
            size_t end = paths.find(':', start);
            end = end == std::string::npos ? paths.size() : end;
            if (is_file(paths.substr(start, end - start))) {
                return true;
            }
            start = end + 1;
        }
        return false;
    }
    const char* home = std::getenv("HOME");
    return home != nullptr && is_file(std::string(home) + "/.kube/config");
}

}  // namespace

bool use_local_backend(job::Context& ctx, const std::string& job_backend) {
    if (job::asks_local(ctx.global, job_backend)) {
        return true;
    }
    if (job_backend != manifest::k_backend_kubernetes && !cluster_configured(ctx.global)) {
        ctx.err << "kftrain: note: no kubeconfig (KUBECONFIG, ~/.kube/config), no --context and "
                   "not in a pod: using the local backend (--local)\n";
        return true;
    }
    return false;
}

std::unique_ptr<job::Backend> make_backend(
    job::Context& ctx, const std::string& job_backend, const std::string& ns,
    std::optional<std::chrono::steady_clock::time_point> give_up_at) {
    if (use_local_backend(ctx, job_backend)) {
        return backend::local::make_local_backend(ctx.err);
    }
    // A cluster's finished jobs are recorded, and read from their records once gone.
    return with_history(backend::kube::make_kubernetes_backend(ctx.global, ns, give_up_at),
                        ctx.global, ctx.err);
}

util::Result<Archived> archive(job::Context& ctx, const std::string& ns, const std::string& job) {
    if (use_local_backend(ctx, "")) {
        return util::error(
            fmt::format("--local: local jobs keep their state in {} already (got archive {})",
                        state::state_folder(state::k_jobs_folder), job),
            k_exit_bad_input);
    }
    auto cluster = backend::kube::make_kubernetes_backend(ctx.global, ns);
    return archive_job(*cluster, job);
}

std::unique_ptr<job::SearchBackend> make_search_backend(
    job::Context& ctx, const std::string& job_backend, const std::string& ns,
    std::optional<std::chrono::steady_clock::time_point> give_up_at) {
    if (use_local_backend(ctx, job_backend)) {
        return backend::local::make_local_search(ctx.err);
    }
    return backend::kube::make_kube_search(ctx.global, ns, std::nullopt, give_up_at);
}

util::Result<estimate::ProgramProfile> measure(const job::BackendOptions& global,
                                               const cost::MeasureRequest& request, bool on_cluster,
                                               std::ostream& err) {
    if (on_cluster) {
        return backend::kube::measure_on_cluster(global, request, err);
    }
    return backend::local::measure_program(request, err);
}

HistoryScope history_scope(const job::BackendOptions& global, bool want_namespace) {
    HistoryScope scope{global.context, global.namespace_};
    if (!scope.context.empty() && (!want_namespace || !scope.namespace_.empty())) {
        return scope;
    }
    // kubectl's answer, as the records were keyed when written (backend/kube/history): the one
    // runner of kubectl, with --kubeconfig and a time limit. Its failure leaves "".
    auto kubectl = backend::kube::make_kubectl_runner(global);
    backend::kube::KubeQueries queries(*kubectl, global.namespace_);
    scope.context = backend::kube::context_name(queries, global.context);
    if (want_namespace) {
        scope.namespace_ = backend::kube::namespace_name(queries, global.namespace_);
    }
    return scope;
}

util::Result<int> supervise_local_job(const std::string& job, bool foreground) {
    if (foreground) {
        return backend::local::run_supervisor(job);
    }
    auto started = backend::local::start_detached_supervisor(job);
    if (!started) {
        return started.error_value();
    }
    return 0;
}

}  // namespace kftrain::backend
