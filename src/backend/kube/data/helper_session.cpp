#include "backend/kube/data/helper_session.h"

#include <fmt/format.h>

#include <chrono>

#include "backend/kube/data/pod_start.h"
#include "backend/kube/json_fields.h"
#include "backend/kube/kubectl_errors.h"
#include "backend/kube/status/events.h"
#include "job/exit_codes.h"
#include "staging/claim_path.h"
#include "util/signals/interrupt.h"
#include "util/text.h"
#include "util/time_text.h"

namespace kftrain::backend::kube {
namespace {

using Clock = std::chrono::steady_clock;

// How long one `kubectl wait` runs before kftrain looks at the pod's events again.
constexpr const char* k_wait_slice = "--timeout=2s";

util::Error interrupted(const std::string& pod) {
    return util::error(fmt::format("interrupted; deleting helper pod {}", pod), k_exit_interrupted);
}

std::string joined(const std::vector<std::string>& parts) {
    std::string text;
    for (const auto& part : parts) {
        text += (text.empty() ? "" : ", ") + part;
    }
    return text;
}

}  // namespace

HelperSession::HelperSession(const job::BackendOptions& global, job::Reporter& report,
                             const job::ClaimTarget& target, bool writes)
    : m_global(global),
      m_report(report),
      m_target(target),
      m_kubectl(backend::kube::make_kubectl_runner(global)) {
    m_pod.name = helper_pod_name(target.claim, random_suffix());
    m_pod.namespace_ = target.namespace_;
    m_pod.claim = target.claim;
    m_pod.image = target.image;
    m_pod.read_only = !writes;
    m_pod.as_root = target.as_root;
}

HelperSession::~HelperSession() {
    if (!m_applied) {
        return;
    }
    std::vector<std::string> args = {"delete", "pod", "--wait=false", "--ignore-not-found"};
    auto ns = ns_args();
    args.insert(args.end(), ns.begin(), ns.end());
    args.push_back("--");
    args.push_back(m_pod.name);
    auto deleted = m_kubectl->run(args);
    if (!deleted || !deleted->ok()) {
        std::string why = !deleted ? deleted.error() : backend::kube::printable_line(deleted->err);
        m_report.notes << fmt::format(
            "kftrain: warning: could not delete helper pod {}: {}; delete it with: kubectl "
            "delete pod {}{}\n",
            m_pod.name, why, m_pod.name,
            m_target.namespace_.empty() ? "" : " -n " + m_target.namespace_);
    }
}

std::vector<std::string> HelperSession::ns_args() const {
    if (m_target.namespace_.empty()) {
        return {};
    }
    return {"-n", m_target.namespace_};
}

// "namespace ml-training": -n, else kubectl's current one as its config says.
util::Result<std::string> HelperSession::namespace_words() {
    if (!m_target.namespace_.empty()) {
        return "namespace " + m_target.namespace_;
    }
    auto current = m_kubectl->run({"config", "view", "--minify", "-o", "jsonpath={..namespace}"});
    std::string ns = current && current->ok() ? util::trim(current->out) : "";
    return "namespace " + (ns.empty() ? std::string("default") : ns);
}

util::Status HelperSession::check_claim() {
    std::vector<std::string> args = {"get", "persistentvolumeclaim", "-o", "json"};
    auto ns = ns_args();
    args.insert(args.end(), ns.begin(), ns.end());
    args.push_back("--");
    args.push_back(m_target.claim);
    auto got = m_kubectl->run(args);
    if (!got) {
        return util::error(got.error(), got.error_code(k_exit_cluster));
    }
    if (!got->ok()) {
        if (backend::kube::classify_kubectl_error(got->err) ==
            backend::kube::KubectlFailure::NotFound) {
            return util::error(
                fmt::format("--claim: persistentvolumeclaim {} not found in {} (kubectl get "
                            "persistentvolumeclaims lists those there)",
                            m_target.claim, *namespace_words()),
                k_exit_not_found);
        }
        return util::error(backend::kube::explain_kubectl_error(
                               got->err, "read persistentvolumeclaim " + m_target.claim),
                           k_exit_cluster);
    }
    auto claim = backend::kube::parse_json_object(got->out);
    if (!claim) {
        return util::error(claim.error(), k_exit_cluster);
    }
    const std::string phase =
        backend::kube::string_at(backend::kube::member(*claim, "status"), "phase");
    if (phase == "Lost") {
        return util::error(
            fmt::format("persistentvolumeclaim {} is Lost: its volume is gone", m_target.claim),
            k_exit_cluster);
    }
    return util::ok_status();
}

util::Status HelperSession::start() {
    m_applied = true;  // from here on the pod is deleted, even if apply seems to fail
    std::vector<std::string> args = {"apply", "-f", "-"};
    auto ns = ns_args();
    args.insert(args.end(), ns.begin(), ns.end());
    auto applied = m_kubectl->run(args, helper_pod_manifest(m_pod));
    if (!applied) {
        return util::error(applied.error(), applied.error_code(k_exit_cluster));
    }
    if (!applied->ok()) {
        return util::error(
            backend::kube::explain_kubectl_error(applied->err, "create helper pod " + m_pod.name),
            k_exit_cluster);
    }
    const auto deadline = Clock::now() + m_target.start_timeout;
    std::string warning;
    while (true) {
        if (util::interrupt_requested()) {
            return interrupted(m_pod.name);
        }
        std::vector<std::string> wait = {"wait", "--for=condition=Ready", k_wait_slice};
        wait.insert(wait.end(), ns.begin(), ns.end());
        wait.push_back("pod/" + m_pod.name);
        auto waited = m_kubectl->run(wait);
        if (waited && waited->ok()) {
            return util::ok_status();
        }
        bool ready = false;
        if (auto checked = check_once(ready, warning); !checked || ready) {
            return checked;
        }
        if (Clock::now() >= deadline) {
            return util::error(
                fmt::format(
                    "helper pod {} was not Ready within {} (--timeout){}", m_pod.name,
                    util::format_duration(static_cast<double>(m_target.start_timeout.count())),
                    warning.empty() ? ""
                                    : "; last warning: " + backend::kube::printable_line(warning)),
                k_exit_timeout);
        }
    }
}

// Look at the pod and its events once: ready, or a problem that keeps it from starting.
util::Status HelperSession::check_once(bool& ready, std::string& last_warning_text) {
    auto ns = ns_args();
    std::vector<std::string> get_pod = {"get", "pod", "-o", "json"};
    get_pod.insert(get_pod.end(), ns.begin(), ns.end());
    get_pod.push_back("--");
    get_pod.push_back(m_pod.name);
    auto pod_text = m_kubectl->run(get_pod);
    if (!pod_text) {
        return util::error(pod_text.error(), pod_text.error_code(k_exit_cluster));
    }
    if (!pod_text->ok()) {
        return util::error(
            backend::kube::explain_kubectl_error(pod_text->err, "read helper pod " + m_pod.name),
            k_exit_cluster);
    }
    auto pod = backend::kube::parse_json_object(pod_text->out);
    if (!pod) {
        return util::error(pod.error(), k_exit_cluster);
    }
    if (pod_ready(*pod)) {
        ready = true;
        return util::ok_status();
    }
    std::vector<std::string> get_events = {
        "get",  "events",           "-o",
        "json", "--field-selector", "involvedObject.kind=Pod,involvedObject.name=" + m_pod.name};
    get_events.insert(get_events.end(), ns.begin(), ns.end());
    auto events_text = m_kubectl->run(get_events);
    std::vector<backend::kube::KubeEvent> events;
    if (events_text && events_text->ok()) {
        events = backend::kube::parse_events(events_text->out, {m_pod.name});
    }
    last_warning_text = last_warning(events);
    if (auto problem = start_problem(*pod, events)) {
        return explain_blocked(*problem);
    }
    return util::ok_status();
}

util::Status HelperSession::explain_blocked(const StartProblem& problem) {
    const std::string said = backend::kube::printable_line(problem.message);
    if (problem.kind == StartProblem::Kind::Image) {
        return util::error(
            fmt::format("helper pod {} cannot pull image {} ({}) (hint: --image names an image "
                        "with tar, find and stat that the cluster can pull)",
                        m_pod.name, m_pod.image, said),
            k_exit_cluster);
    }
    if (problem.kind == StartProblem::Kind::Failed) {
        return util::error(fmt::format("helper pod {} failed: {}", m_pod.name, said),
                           k_exit_cluster);
    }
    std::vector<std::string> holders;
    std::vector<std::string> get_pods = {"get", "pods", "-o", "json"};
    auto ns = ns_args();
    get_pods.insert(get_pods.end(), ns.begin(), ns.end());
    if (auto pods = m_kubectl->run(get_pods); pods && pods->ok()) {
        if (auto list = backend::kube::parse_json_object(pods->out)) {
            holders = pods_using_claim(*list, m_target.claim, m_pod.name);
        }
    }
    if (holders.empty()) {
        holders = problem.holders;
    }
    return util::error(
        fmt::format("--claim: persistentvolumeclaim {} is in use by {} and cannot be mounted "
                    "by another pod on another node ({}); wait for {} to finish or delete it, "
                    "then try again",
                    m_target.claim,
                    holders.empty() ? std::string("another pod") : "pod " + joined(holders), said,
                    holders.empty() ? "it" : "that pod"),
        k_exit_cluster);
}

std::vector<std::string> HelperSession::exec_args(const std::vector<std::string>& command,
                                                  bool with_stdin) const {
    std::vector<std::string> args = {"exec"};
    if (with_stdin) {
        args.push_back("-i");
    }
    auto ns = ns_args();
    args.insert(args.end(), ns.begin(), ns.end());
    args.insert(args.end(), {m_pod.name, "-c", k_helper_container, "--"});
    args.insert(args.end(), command.begin(), command.end());
    return args;
}

std::vector<std::string> HelperSession::exec_argv(const std::vector<std::string>& command,
                                                  bool with_stdin) const {
    std::vector<std::string> argv = {backend::kube::kubectl_program()};
    auto global = backend::kube::kubectl_global_args(m_global);
    argv.insert(argv.end(), global.begin(), global.end());
    auto args = exec_args(command, with_stdin);
    argv.insert(argv.end(), args.begin(), args.end());
    return argv;
}

util::Result<backend::kube::KubectlResult> HelperSession::exec(
    const std::vector<std::string>& command) {
    auto ran = m_kubectl->run(exec_args(command, false));
    if (!ran) {
        return util::error(ran.error(), ran.error_code(k_exit_cluster));
    }
    return ran;
}

util::Result<job::Listing> HelperSession::list() {
    const std::string base = staging::pod_path(m_target.path);
    const std::string token = random_suffix() + random_suffix() + random_suffix();
    auto found =
        exec({"find", base, "-exec", "stat", "-c", staging::stat_format(token), "{}", "+"});
    if (!found) {
        return found.error_value();
    }
    job::Listing listing = staging::parse_stat_records(found->out, base, token);
    if (!found->ok() && !listing.found) {
        if (util::to_lower(found->err).find("no such file") != std::string::npos) {
            return util::error(fmt::format("--path: {} not found in persistentvolumeclaim {}",
                                           m_target.path, m_target.claim),
                               k_exit_not_found);
        }
        return util::error(
            fmt::format("cannot list {} in persistentvolumeclaim {}: {}", m_target.path,
                        m_target.claim, backend::kube::printable_line(util::trim(found->err))),
            k_exit_cluster);
    }
    if (!found->ok()) {
        m_report.notes << "kftrain: warning: "
                       << backend::kube::printable_line(util::first_line(found->err)) << "\n";
    }
    listing.claim = m_target.claim;
    listing.path = m_target.path;
    return listing;
}

}  // namespace kftrain::backend::kube
