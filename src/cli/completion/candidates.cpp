#include "cli/completion/candidates.h"

#include <algorithm>
#include <set>

#include "cli/completion/values.h"
#include "util/text.h"

namespace kftrain::cli::completion {
namespace {

// Return text on one line, for the one-line protocol: tabs and newlines become spaces.
// Return text on one line, its other control bytes escaped: a description from the cluster
// must not drive the terminal.
std::string one_line(std::string text) {
    for (char& c : text) {
        if (c == '\t' || c == '\n' || c == '\r') {
            c = ' ';
        }
    }
    return util::escape_controls(text);
}

bool has_control(const std::string& text) {
    return std::any_of(text.begin(), text.end(),
                       [](char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7f; });
}

bool starts_with(const std::string& text, const std::string& prefix) {
    return text.compare(0, prefix.size(), prefix) == 0;
}

// Return whether an option is shown (CLI11 hides those of the empty group).
bool visible(const CLI::Option& option) {
    return !option.get_group().empty();
}

// Return whether an option takes a value (a flag takes none).
bool takes_value(const CLI::Option& option) {
    return option.get_expected_max() > 0;
}

// Return the flag named by a word ("-o", "--output") among command's and its parents'
// options (flags of the app work after a verb); nullptr when none.
CLI::Option* find_flag(CLI::App& command, const std::string& word) {
    for (CLI::App* at = &command; at != nullptr; at = at->get_parent()) {
        for (CLI::Option* option : at->get_options()) {
            if (option->nonpositional() && option->check_name(word)) {
                return option;
            }
        }
    }
    return nullptr;
}

// Return the subcommand of command named word (or by an alias); nullptr when none.
CLI::App* find_subcommand(CLI::App& command, const std::string& word) {
    for (CLI::App* sub : command.get_subcommands([](CLI::App*) { return true; })) {
        if (sub->check_name(word)) {
            return sub;
        }
    }
    return nullptr;
}

// Return the positional option of command that takes its index-th argument; nullptr when none.
CLI::Option* positional_at(CLI::App& command, size_t index) {
    size_t seen = 0;
    for (CLI::Option* option : command.get_options()) {
        if (!option->get_positional() || option->nonpositional()) {
            continue;
        }
        const int max = option->get_items_expected_max();
        if (max >= CLI::detail::expected_max_vector_size) {
            return option;
        }
        seen += static_cast<size_t>(std::max(max, 1));
        if (index < seen) {
            return option;
        }
    }
    return nullptr;
}

// Read one word before CURRENT into line. pending is a flag that takes the next word;
// optional one that may (--dry-run [server]).
void read_word(TypedLine& line, CLI::Option*& pending, CLI::Option*& optional,
               const std::string& word) {
    optional = nullptr;
    if (pending != nullptr) {
        line.given.emplace_back(pending, word);
        pending = nullptr;
        return;
    }
    if (line.after_dashes) {
        line.arguments.push_back(word);
        return;
    }
    if (word == "--") {
        line.after_dashes = true;
        return;
    }
    if (word.size() > 1 && word[0] == '-') {
        const size_t equals = word.find('=');
        const bool long_with_value = starts_with(word, "--") && equals != std::string::npos;
        CLI::Option* option = find_flag(*line.command, word.substr(0, equals));
        if (option == nullptr) {
            return;  // not ours: kftrain will say so
        }
        if (long_with_value) {
            line.given.emplace_back(option, word.substr(equals + 1));
        } else if (takes_value(*option) && option->get_expected_min() > 0) {
            pending = option;
        } else {
            line.given.emplace_back(option, "");
            optional = takes_value(*option) ? option : nullptr;
        }
        return;
    }
    if (line.arguments.empty()) {
        if (CLI::App* sub = find_subcommand(*line.command, word)) {
            line.command = sub;
            return;
        }
    }
    line.arguments.push_back(word);
}

// The flags CURRENT may be: the verb's and the app's, shown, not given yet unless repeatable.
std::vector<Candidate> flag_candidates(const TypedLine& line) {
    std::set<const CLI::Option*> given;
    for (const auto& [option, value] : line.given) {
        if (option->get_items_expected_max() <= 1) {
            given.insert(option);
        }
    }
    std::vector<Candidate> flags;
    std::set<std::string> named;
    auto offer = [&](const CLI::Option* option) {
        if (!visible(*option) || !option->nonpositional() || given.count(option) > 0) {
            return;
        }
        for (const auto& name : option->get_lnames()) {
            if (named.insert("--" + name).second) {
                flags.push_back({"--" + name, option->get_description()});
            }
        }
        for (const auto& name : option->get_snames()) {
            if (named.insert("-" + name).second) {
                flags.push_back({"-" + name, option->get_description()});
            }
        }
    };
    for (const CLI::Option* option : line.command->get_options()) {
        offer(option);
    }
    const CLI::App* root = line.command;
    while (root->get_parent() != nullptr) {
        root = root->get_parent();
    }
    if (root != line.command) {
        for (const CLI::Option* option : root->get_options()) {
            if (option->get_lnames() != std::vector<std::string>{"version"}) {
                offer(option);  // the global flags
            }
        }
    }
    return flags;
}

// The verbs below the command, without hidden ones (__complete, __supervise).
std::vector<Candidate> subcommand_candidates(const TypedLine& line) {
    std::vector<Candidate> verbs;
    for (const CLI::App* sub : line.command->get_subcommands({})) {
        if (!sub->get_group().empty() && !sub->get_disabled()) {
            verbs.push_back({sub->get_name(), sub->get_description()});
        }
    }
    return verbs;
}

// Return the candidates that are numbers while current is empty or starts with a digit, else
// the others: a trial is given by its number or its name, and a list of both twice as long.
std::vector<Candidate> numbers_or_names(std::vector<Candidate> candidates,
                                        const std::string& current) {
    const auto is_digit = [](char c) { return c >= '0' && c <= '9'; };
    const bool numbers = current.empty() || is_digit(current.front());
    std::vector<Candidate> kept;
    for (auto& candidate : candidates) {
        const bool number = !candidate.value.empty() && is_digit(candidate.value.front());
        if (number == numbers) {
            kept.push_back(std::move(candidate));
        }
    }
    return kept;
}

// Return what a source of names offers for the typed line: the jobs, searches, queues,
// replicas, trials, claims or GPU types; nothing for other kinds or an unknown source.
std::vector<Candidate> named_candidates(ValueKind kind, const TypedLine& line,
                                        const NameSources& names) {
    const bool job_typed = !line.arguments.empty();
    switch (kind) {
        case ValueKind::JobName:
            return names.jobs ? names.jobs() : std::vector<Candidate>{};
        case ValueKind::SearchName:
            return names.searches ? names.searches() : std::vector<Candidate>{};
        case ValueKind::QueueName:
            return names.queues ? names.queues() : std::vector<Candidate>{};
        case ValueKind::ReplicaName:
            return names.replicas && job_typed ? names.replicas(line.arguments.front())
                                               : std::vector<Candidate>{};
        case ValueKind::TrialReplicaName:
            return names.trial_replicas && job_typed
                       ? names.trial_replicas(line.arguments.front(), typed_value(line, "trial"))
                       : std::vector<Candidate>{};
        case ValueKind::TrialName:
            return names.trials && job_typed
                       ? numbers_or_names(names.trials(line.arguments.front()), line.current)
                       : std::vector<Candidate>{};
        case ValueKind::ClaimName:
            return names.claims ? names.claims() : std::vector<Candidate>{};
        case ValueKind::GpuType:
            return names.gpus ? names.gpus(typed_value(line, "prices")) : std::vector<Candidate>{};
        default:
            return {};
    }
}

// Complete a value of option from where values.h says it comes.
Completion value_completion(const TypedLine& line, const CLI::Option& option,
                            const NameSources& names) {
    ValueSource source = value_source(*line.command, option);
    Completion completion;
    switch (source.kind) {
        case ValueKind::Closed:
            for (auto& value : source.values) {
                completion.candidates.push_back({value, ""});
            }
            break;
        case ValueKind::JobFile:
            for (const auto& extension : job_file_extensions()) {
                completion.candidates.push_back({extension, ""});
            }
            completion.directive = k_file_extensions;
            return completion;  // extensions, not values: no prefix to match
        case ValueKind::AnyFile:
            completion.directive = k_files_allowed;
            break;
        default:
            completion.candidates = named_candidates(source.kind, line, names);
            break;
    }
    return completion;
}

// Keep the candidates that start with prefix.
void keep_matching(Completion& completion, const std::string& prefix) {
    std::vector<Candidate> kept;
    for (auto& candidate : completion.candidates) {
        if (starts_with(candidate.value, prefix)) {
            kept.push_back(std::move(candidate));
        }
    }
    completion.candidates = std::move(kept);
}

}  // namespace

std::string typed_value(const TypedLine& line, const std::string& long_name) {
    std::string value;
    for (const auto& [option, given] : line.given) {
        if (option->check_lname(long_name)) {
            value = given;
        }
    }
    return value;
}

TypedLine read_line(CLI::App& app, const std::vector<std::string>& words) {
    TypedLine line;
    line.command = &app;
    CLI::Option* pending = nullptr;
    CLI::Option* optional = nullptr;
    for (size_t i = 0; i + 1 < words.size(); ++i) {
        read_word(line, pending, optional, words[i]);
    }
    line.current = words.empty() ? "" : words.back();
    if (pending != nullptr) {
        line.value_of = pending;
        return line;
    }
    if (optional != nullptr && !starts_with(line.current, "-")) {
        line.value_of = optional;
        return line;
    }
    const size_t equals = line.current.find('=');
    if (!line.after_dashes && starts_with(line.current, "--") && equals != std::string::npos) {
        CLI::Option* option = find_flag(*line.command, line.current.substr(0, equals));
        if (option != nullptr && takes_value(*option)) {
            line.value_of = option;
            line.current = line.current.substr(equals + 1);
        }
    }
    return line;
}

void bind_global_flags(CLI::App& app, const TypedLine& line) {
    const auto globals = app.get_options();
    for (const auto& [option, value] : line.given) {
        if (std::find(globals.begin(), globals.end(), option) == globals.end()) {
            continue;  // a verb's own flag
        }
        try {
            option->clear();
            option->add_result(
                takes_value(*option) ? value : option->get_flag_value(option->get_name(), value));
            option->run_callback();
        } catch (const CLI::Error&) {
            option->clear();  // a value its check refuses: as if not typed
        }
    }
}

Completion complete(const TypedLine& line, const NameSources& names) {
    Completion completion;
    if (line.value_of != nullptr) {
        completion = value_completion(line, *line.value_of, names);
    } else if (!line.after_dashes && starts_with(line.current, "-")) {
        completion.candidates = flag_candidates(line);
    } else {
        if (line.arguments.empty() && !line.after_dashes) {
            completion.candidates = subcommand_candidates(line);
        }
        CLI::Option* argument = positional_at(*line.command, line.arguments.size());
        if (argument != nullptr) {
            Completion values = value_completion(line, *argument, names);
            if (values.directive != k_no_files || completion.candidates.empty()) {
                completion.directive = values.directive;
            }
            for (auto& candidate : values.candidates) {
                completion.candidates.push_back(std::move(candidate));
            }
        }
    }
    if (completion.directive != k_file_extensions) {
        keep_matching(completion, line.current);
    }
    return completion;
}

std::string format_completion(const Completion& completion) {
    std::string text;
    for (const auto& candidate : completion.candidates) {
        if (has_control(candidate.value)) {
            continue;  // no name of kftrain's or the cluster's has one: the shell would insert it
        }
        text += candidate.value;
        if (!candidate.description.empty()) {
            text += "\t" + one_line(candidate.description);
        }
        text += "\n";
    }
    return text + ":" + std::to_string(completion.directive) + "\n";
}

}  // namespace kftrain::cli::completion
