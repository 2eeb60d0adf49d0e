#include "cli/kube/kubectl.h"

#include <fmt/format.h>

#include <cstdlib>

namespace kftrain::cli::kube {
namespace {

class ProcessKubectl : public KubectlRunner {
  public:
    explicit ProcessKubectl(const GlobalOptions& global)
        : m_program(kubectl_program()), m_global(kubectl_global_args(global)) {}

    util::Result<KubectlResult> run(const std::vector<std::string>& args,
                                    const std::string& input) override {
        return start(args, input, util::LineCallback{}, nullptr);
    }

    util::Result<KubectlResult> stream(const std::vector<std::string>& args,
                                       const util::LineCallback& on_line,
                                       const std::atomic<bool>* cancel) override {
        return start(args, "", on_line, cancel);
    }

  private:
    util::Result<KubectlResult> start(const std::vector<std::string>& args,
                                      const std::string& input, const util::LineCallback& on_line,
                                      const std::atomic<bool>* cancel) {
        if (!util::find_executable(m_program)) {
            return util::error(fmt::format(
                "kubectl not found ({}): install kubectl or point KFTRAIN_KUBECTL at it, "
                "or run the job on this machine with --local",
                m_program));
        }
        util::RunOptions options;
        options.argv.push_back(m_program);
        options.argv.insert(options.argv.end(), m_global.begin(), m_global.end());
        options.argv.insert(options.argv.end(), args.begin(), args.end());
        options.input = input;
        options.cancel = cancel;
        auto result = util::run_streaming(options, on_line, util::LineCallback{});
        if (!result) {
            return util::Error{result.error()};
        }
        return KubectlResult{result->status.as_shell_code(), std::move(result->out),
                             std::move(result->err), result->cancelled};
    }

    std::string m_program;
    std::vector<std::string> m_global;
};

}  // namespace

std::string kubectl_program() {
    const char* override_path = std::getenv("KFTRAIN_KUBECTL");
    return override_path != nullptr && *override_path != '\0' ? override_path : "kubectl";
}

std::vector<std::string> kubectl_global_args(const GlobalOptions& global) {
    std::vector<std::string> args;
    if (!global.context.empty()) {
        args.push_back("--context=" + global.context);
    }
    if (!global.kubeconfig.empty()) {
        args.push_back("--kubeconfig=" + global.kubeconfig);
    }
    if (!global.request_timeout.empty()) {
        args.push_back("--request-timeout=" + global.request_timeout);
    }
    return args;
}

std::unique_ptr<KubectlRunner> make_kubectl_runner(const GlobalOptions& global) {
    return std::make_unique<ProcessKubectl>(global);
}

}  // namespace kftrain::cli::kube
