#include <fmt/format.h>

#include "cli/backend.h"
#include "cli/exit_codes.h"
#include "cli/kubectl.h"
#include "cli/kubectl_errors.h"

namespace kftrain::cli {
namespace {

// Jobs on a cluster with the Kubeflow Training Operator, through kubectl.
class KubernetesBackend : public Backend {
  public:
    KubernetesBackend(const GlobalOptions& global, std::string ns)
        : m_kubectl(make_kubectl_runner(global)), m_namespace(std::move(ns)) {}

    std::string name() const override { return "kubernetes"; }

    util::Result<std::string> submit(const RenderedJob& job, const SubmitFlags& flags) override {
        std::vector<std::string> args = {"apply", "-f", "-", "--namespace", job.spec.namespace_};
        bool server_dry_run = flags.dry_run == "server";
        if (server_dry_run) {
            args.push_back("--dry-run=server");
        }
        auto result = m_kubectl->run(args, format_manifest(job.manifest, "yaml"));
        if (!result) {
            return util::error(result.error(), k_exit_cluster);
        }
        if (!result->ok()) {
            std::string action = fmt::format("submitting pytorchjob/{}", job.spec.name);
            return util::error(explain_kubectl_error(result->err, action), k_exit_cluster);
        }
        if (server_dry_run) {
            return fmt::format("pytorchjob/{} accepted by the server (dry run: nothing created)",
                               job.spec.name);
        }
        return fmt::format("pytorchjob/{} submitted", job.spec.name);
    }

    util::Result<JobStatus> status(const std::string& job) override { return unsupported(job); }

    util::Result<std::vector<JobStatus>> list(bool) override {
        return util::error("list on a cluster is not implemented yet", k_exit_cluster);
    }

    util::Status logs(const std::string& job, const LogOptions&, const LogSink&) override {
        return util::error(fmt::format("logs of {} on a cluster: not implemented yet", job),
                           k_exit_cluster);
    }

    util::Status remove(const std::string& job, bool) override {
        return util::error(fmt::format("delete of {} on a cluster: not implemented yet", job),
                           k_exit_cluster);
    }

    util::Result<std::string> describe(const std::string& job) override {
        return util::error(fmt::format("describe of {}: not implemented yet", job), k_exit_cluster);
    }

  private:
    util::Error unsupported(const std::string& job) {
        return util::error(fmt::format("status of {} on a cluster: not implemented yet", job),
                           k_exit_cluster);
    }

    std::unique_ptr<KubectlRunner> m_kubectl;
    std::string m_namespace;
};

}  // namespace

std::unique_ptr<Backend> make_kubernetes_backend(const GlobalOptions& global,
                                                 const std::string& ns) {
    return std::make_unique<KubernetesBackend>(global, ns);
}

}  // namespace kftrain::cli
