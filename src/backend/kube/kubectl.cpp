#include "backend/kube/kubectl.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>

#include "job/exit_codes.h"
#include "util/signals/interrupt.h"
#include "util/time_text.h"

namespace kftrain::backend::kube {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

// kftrain's limit past --request-timeout: kubectl is given the time to end on its own first.
constexpr seconds k_grace{5};

// Return --request-timeout in seconds: whole seconds or a duration; nullopt when not given
// (or not one: the verb refused it before any call).
std::optional<double> request_timeout_seconds(const std::string& text) {
    auto seconds = util::parse_duration(text, util::k_request_timeout.whole_seconds);
    return seconds ? std::optional<double>(*seconds) : std::nullopt;
}

// kubectl's verb and the names after it ("get pytorchjobs.kubeflow.org mnist"), for messages.
std::string call_words(const std::vector<std::string>& args) {
    std::string words = "kubectl";
    for (const auto& arg : args) {
        if (arg.empty() || arg[0] == '-' || words.size() > 80) {
            break;
        }
        words += " " + arg;
    }
    return words;
}

// Why a finished call is no answer at all; "" when kubectl ended by itself.
std::string abnormal_end(const util::RunResult& run, const std::vector<std::string>& args,
                         std::optional<milliseconds> limit) {
    const std::string words = call_words(args);
    if (run.timed_out) {
        return fmt::format(
            "{} did not finish within {}; kftrain stopped it (hint: the cluster may be slow or "
            "unreachable; give kubectl longer with --request-timeout)",
            words, util::format_duration(limit ? static_cast<double>(limit->count()) / 1000 : 0));
    }
    if (run.out_overflow) {
        return fmt::format("{} printed more than {} MiB; kftrain stopped it", words,
                           util::RunOptions{}.max_out >> 20);
    }
    if (run.status.signal != 0 && !run.cancelled) {
        return fmt::format(
            "{} was killed by {} (hint: the machine may be out of memory, or another program "
            "stopped it)",
            words, run.status.describe());
    }
    return "";
}

class ProcessKubectl : public KubectlRunner {
  public:
    ProcessKubectl(const job::BackendOptions& global, std::optional<Clock::time_point> give_up_at)
        : m_program(kubectl_program()),
          m_global(kubectl_global_args(global)),
          m_request_timeout(global.request_timeout),
          m_give_up_at(give_up_at) {}

    util::Result<KubectlResult> run(const std::vector<std::string>& args,
                                    const std::string& input) override {
        return start(args, input, util::LineCallback{}, nullptr,
                     call_limit(m_request_timeout, args));
    }

    util::Result<KubectlResult> stream(const std::vector<std::string>& args,
                                       const util::LineCallback& on_line,
                                       const std::atomic<bool>* cancel) override {
        return start(args, "", on_line, cancel, std::nullopt);
    }

  private:
    util::Result<KubectlResult> start(const std::vector<std::string>& args,
                                      const std::string& input, const util::LineCallback& on_line,
                                      const std::atomic<bool>* cancel,
                                      std::optional<milliseconds> limit) {
        if (!util::find_executable(m_program)) {
            std::error_code ec;
            if (m_program.find('/') != std::string::npos &&
                std::filesystem::is_regular_file(m_program, ec)) {
                return util::error(
                    fmt::format("kubectl at {} is not executable: make it so (chmod +x) or point "
                                "KFTRAIN_KUBECTL at kubectl",
                                m_program));
            }
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
        if (cancel != nullptr) {
            options.cancelled = [cancel] { return cancel->load(); };
        } else if (util::calls_stop_on_interrupt()) {
            // A signal caught from the call's start on stops it (a Ctrl-C before it does not:
            // the call may be the clean-up that Ctrl-C asked for).
            const unsigned seen = util::interrupt_count();
            options.cancelled = [seen] { return util::interrupt_count() != seen; };
        }
        options.timeout = capped(limit);
        if (options.timeout && options.timeout->count() == 0) {  // the command's time is up
            return util::error(fmt::format("kubectl {} was not run: the time this command was "
                                           "given (--timeout) had run out",
                                           fmt::join(args, " ")),
                               k_exit_cluster);
        }
        auto result = util::run_streaming(options, on_line, util::LineCallback{});
        if (!result) {
            return util::error(result.error());
        }
        if (result->cancelled && cancel == nullptr) {
            return util::error("interrupted", k_exit_interrupted);
        }
        if (auto why = abnormal_end(*result, args, options.timeout); !why.empty()) {
            return util::error(why, k_exit_cluster);
        }
        if (result->err_dropped > 0) {
            result->err += fmt::format("\n[{} more bytes cut]", result->err_dropped);
        }
        return KubectlResult{result->status.as_shell_code(), std::move(result->out),
                             std::move(result->err), result->cancelled};
    }

    // The call's limit, no later than the give-up time. Rounded up: a call cut short by the
    // give-up time must end at or after it, so that its caller sees the time as up (a call
    // ended a fraction of a millisecond early read as a cluster error, not a timeout).
    std::optional<milliseconds> capped(std::optional<milliseconds> limit) const {
        if (!m_give_up_at) {
            return limit;
        }
        auto left = std::max(milliseconds(0),
                             std::chrono::ceil<milliseconds>(*m_give_up_at - Clock::now()));
        return limit ? std::min(*limit, left) : left;
    }

    std::string m_program;
    std::vector<std::string> m_global;
    std::string m_request_timeout;
    std::optional<Clock::time_point> m_give_up_at;
};

}  // namespace

std::optional<milliseconds> call_limit(const std::string& request_timeout,
                                       const std::vector<std::string>& args) {
    const std::string verb = args.empty() ? "" : args[0];
    const bool waits =
        verb == "delete" && std::find(args.begin(), args.end(), "--wait=false") == args.end();
    if (auto given = request_timeout_seconds(request_timeout); given && !waits) {
        if (*given <= 0) {
            return std::nullopt;
        }
        return std::chrono::duration_cast<milliseconds>(std::chrono::duration<double>(*given)) +
               k_grace;
    }
    if (waits) {
        return seconds(300);  // the operator removes the pods first
    }
    if (verb == "get" || verb == "api-resources" || verb == "version" || verb == "auth") {
        return seconds(60);
    }
    return seconds(120);
}

std::string kubectl_program() {
    const char* override_path = std::getenv("KFTRAIN_KUBECTL");
    return override_path != nullptr && *override_path != '\0' ? override_path : "kubectl";
}

std::vector<std::string> server_side_apply_args(const std::string& namespace_,
                                                bool dry_run_server) {
    std::vector<std::string> args = {
        "apply", "--server-side", "--field-manager=kftrain", "--force-conflicts", "-f", "-"};
    if (!namespace_.empty()) {
        args.insert(args.end(), {"--namespace", namespace_});
    }
    if (dry_run_server) {
        args.push_back("--dry-run=server");
    }
    return args;
}

std::vector<std::string> kubectl_global_args(const job::BackendOptions& global) {
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

std::unique_ptr<KubectlRunner> make_kubectl_runner(const job::BackendOptions& global,
                                                   std::optional<Clock::time_point> give_up_at) {
    return std::make_unique<ProcessKubectl>(global, give_up_at);
}

}  // namespace kftrain::backend::kube
