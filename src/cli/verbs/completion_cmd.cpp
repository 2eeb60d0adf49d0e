#include "cli/verbs/completion_cmd.h"

#include <fmt/format.h>

#include <chrono>
#include <memory>
#include <sstream>
#include <utility>

#include "cli/completion/candidates.h"
#include "cli/completion/names.h"
#include "cli/completion/scripts.h"
#include "cli/verb.h"
#include "job/exit_codes.h"

namespace kftrain::cli {
namespace {

constexpr const char* k_completion_examples =
    "Examples:\n"
    "  # Complete kftrain's verbs, flags and job names in this bash\n"
    "  source <(kftrain completion bash)\n"
    "  # In every new bash\n"
    "  kftrain completion bash > ~/.local/share/bash-completion/completions/kftrain\n"
    "  # zsh (after compinit), in every new shell\n"
    "  kftrain completion zsh > \"${fpath[1]}/_kftrain\"\n"
    "  # fish\n"
    "  kftrain completion fish > ~/.config/fish/completions/kftrain.fish";

// How long completion waits for the backend to list jobs or searches: a shell must answer
// a Tab at once, and a slow cluster leaves the names out.
constexpr std::chrono::milliseconds k_listing_deadline{3000};

// "bash, zsh or fish".
std::string shells_text() {
    const auto& shells = completion::shell_names();
    std::string text;
    for (size_t i = 0; i < shells.size(); ++i) {
        text += (i == 0 ? "" : i + 1 == shells.size() ? " or " : ", ") + shells[i];
    }
    return text;
}

}  // namespace

void setup_completion(CLI::App& app, Context& ctx, AppFactory make_app) {
    auto options = std::make_shared<CompletionOptions>();
    auto* sub =
        app.add_subcommand("completion", "Print the shell completion script of " + shells_text());
    sub->footer(k_completion_examples);
    sub->add_option("shell", options->shell, "The shell: " + shells_text())->required();
    run_when_parsed(*sub, options, ctx);

    auto words = std::make_shared<CompleteOptions>();
    words->make_app = std::move(make_app);
    auto* hidden = app.add_subcommand("__complete", "");
    hidden->group("");  // hidden: the completion scripts call it
    hidden->set_help_flag();
    // Every word after PROGRAM is the user's, unparsed: "-o", "--", "--help" included.
    hidden->fallthrough(false);
    hidden->prefix_command();
    hidden->callback([hidden, words, &ctx] {
        words->words = hidden->remaining();
        if (!words->words.empty()) {
            words->words.erase(words->words.begin());  // PROGRAM
        }
        ctx.exit_code = run_verb(*words, ctx);
    });
}

util::Status CompletionOptions::complete(const Context&) {
    return util::ok_status();
}

util::Status CompletionOptions::validate() const {
    if (!completion::completion_script(shell)) {
        return util::error(
            fmt::format("completion: the shell must be {} (got {})", shells_text(), shell));
    }
    return util::ok_status();
}

int CompletionOptions::run(Context& ctx) const {
    ctx.out << *completion::completion_script(shell);
    return k_exit_ok;
}

util::Status CompleteOptions::complete(const Context&) {
    return util::ok_status();
}

util::Status CompleteOptions::validate() const {
    return util::ok_status();
}

int CompleteOptions::run(Context& ctx) const {
    std::ostringstream quiet;
    Context model_ctx{quiet, quiet, {}, k_exit_ok};
    auto model = make_app(model_ctx);  // the command line run_cli parses, to walk
    completion::TypedLine line = completion::read_line(*model, words);
    completion::bind_global_flags(*model, line);
    const GlobalOptions& global = model_ctx.global;
    completion::NameSources names;
    names.jobs = [&global] { return completion::job_names(global, k_listing_deadline); };
    names.searches = [&global] { return completion::search_names(global, k_listing_deadline); };
    names.queues = [&global] { return completion::queue_names(global, k_listing_deadline); };
    names.replicas = [&global](const std::string& job) {
        return completion::replica_names(global, job, k_listing_deadline);
    };
    names.trial_replicas = [&global](const std::string& search, const std::string& trial) {
        return completion::trial_replica_names(global, search, trial, k_listing_deadline);
    };
    names.trials = [&global](const std::string& search) {
        return completion::trial_names(global, search, k_listing_deadline);
    };
    const std::string job_file = completion::typed_value(line, "file");
    names.claims = [&global, &job_file] {
        return completion::claim_names(global, job_file, k_listing_deadline);
    };
    names.gpus = [](const std::string& prices) { return completion::gpu_types(prices); };
    ctx.out << completion::format_completion(completion::complete(line, names));
    return k_exit_ok;
}

}  // namespace kftrain::cli
