#include "cli/completion/values.h"

#include "cli/completion/scripts.h"
#include "cli/flags.h"
#include "cli/view/output_format.h"
#include "job/wait_condition.h"
#include "manifest/job_kind.h"
#include "tune/tune_spec.h"

namespace kftrain::cli::completion {
namespace {

ValueSource closed(std::vector<std::string> values) {
    return {ValueKind::Closed, std::move(values)};
}

std::vector<std::string> kind_names() {
    std::vector<std::string> names;
    for (manifest::JobKind kind : manifest::k_kinds) {
        names.emplace_back(manifest::kind_name(kind));
    }
    return names;
}

ValueSource positional_source(const std::string& path, const CLI::Option& option) {
    const std::string& name = option.get_name(true);
    if (name == "job") {
        return {ValueKind::JobName, {}};
    }
    if (name == "name" && path.rfind("tune ", 0) == 0) {
        return {ValueKind::SearchName, {}};
    }
    if (path == "completion" && name == "shell") {
        return closed(shell_names());
    }
    return {};
}

}  // namespace

const std::vector<std::string>& job_file_extensions() {
    static const std::vector<std::string> extensions = {"yaml", "yml"};
    return extensions;
}

std::string command_path(const CLI::App& command) {
    std::string path;
    for (const CLI::App* at = &command; at->get_parent() != nullptr; at = at->get_parent()) {
        path = path.empty() ? at->get_name() : at->get_name() + " " + path;
    }
    return path;
}

ValueSource value_source(const CLI::App& command, const CLI::Option& option) {
    const std::string path = command_path(command);
    if (option.get_positional() && !option.nonpositional()) {
        return positional_source(path, option);
    }
    auto named = [&option](const char* name) { return option.check_lname(name); };
    if (named("output")) {
        const auto* formats = view::output_formats_of(path);
        if (formats == nullptr) {
            return {};
        }
        std::vector<std::string> names;
        for (view::OutputFormat format : *formats) {
            names.emplace_back(view::output_format_name(format));
        }
        return closed(std::move(names));
    }
    if (named("queue")) {
        return {ValueKind::QueueName, {}};
    }
    if (named("dry-run")) {
        return closed(dry_run_values());
    }
    if (named("state") && (path == "history" || path == "prune")) {
        return closed({"Succeeded", "Failed", "Succeeded,Failed"});
    }
    if (named("by") && path == "cost") {
        return closed({"job", "namespace", "queue", "user", "label:"});
    }
    if (named("kind")) {
        return closed(kind_names());
    }
    if (named("for") && path == "wait") {
        return closed(job::wait_for_names());
    }
    if (named("algorithm")) {
        return closed(kftrain::tune::k_algorithms);
    }
    if (named("replica")) {
        return {path == "tune logs" ? ValueKind::TrialReplicaName : ValueKind::ReplicaName, {}};
    }
    if (named("trial")) {
        return {ValueKind::TrialName, {}};
    }
    if (named("claim")) {
        return {ValueKind::ClaimName, {}};
    }
    if (named("gpu")) {
        return {ValueKind::GpuType, {}};
    }
    if (named("file") || named("template") || named("prices")) {
        return {ValueKind::JobFile, {}};
    }
    if (named("kubeconfig") || named("profile") || named("root")) {
        return {ValueKind::AnyFile, {}};
    }
    return {};
}

}  // namespace kftrain::cli::completion
