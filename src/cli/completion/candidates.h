#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace kftrain::cli::completion {

// Shell completion asks kftrain itself, as kubectl's (cobra's) does:
//   kftrain __complete PROGRAM WORD... CURRENT
// the words as the shell has them: PROGRAM the command typed (kftrain, ignored), WORD... the
// words after it, CURRENT the one under the cursor ("" for a new word). It prints one candidate a
// line, "value" or "value<TAB>description", then
// ":DIRECTIVE", the sum of these bits telling the shell what to do besides:
enum Directive : int {
    k_files_allowed = 0,    // with no candidate, the shell may complete file names
    k_no_files = 4,         // never complete file names
    k_file_extensions = 8,  // the candidates are extensions (yaml): complete the files that
                            // have them, and directories
};

// One word to offer and, for zsh and fish, what it is.
struct Candidate {
    std::string value;
    std::string description;
};

// The answer to one request.
struct Completion {
    std::vector<Candidate> candidates;
    int directive = k_no_files;
};

// A command line read against the app's verbs and flags.
struct TypedLine {
    CLI::App* command = nullptr;  // the deepest verb named, else the app
    std::vector<std::pair<CLI::Option*, std::string>> given;  // flags before CURRENT, values
    std::vector<std::string> arguments;  // the arguments given to command (a job's name)
    CLI::Option* value_of = nullptr;     // CURRENT is this flag's value
    std::string current;                 // the word completed (after "--flag=" then)
    bool after_dashes = false;           // a "--" came before CURRENT
};

// Read words, the words after the program name (the last the one being completed, maybe "")
// against app: which verb, which flags given, and what CURRENT is.
TypedLine read_line(CLI::App& app, const std::vector<std::string>& words);

// Return the value typed on line for the flag of this long name (the last one), "" when none.
std::string typed_value(const TypedLine& line, const std::string& long_name);

// Give app's own flags typed on the line (-n, --context, --kubeconfig, --local, ...) to
// the variables make_app bound them to, as a parse would; a value their checks refuse is
// left out.
void bind_global_flags(CLI::App& app, const TypedLine& line);

// Where the candidates that are not fixed come from: the job, search and queue names a
// backend lists, the replicas of a job, the trials of a search, the claims of the namespace,
// and the GPU types of a price catalog (the --prices typed, "" for the default).
struct NameSources {
    std::function<std::vector<Candidate>()> jobs;
    std::function<std::vector<Candidate>()> searches;
    std::function<std::vector<Candidate>()> queues;
    std::function<std::vector<Candidate>(const std::string& job)> replicas;
    std::function<std::vector<Candidate>(const std::string& search, const std::string& trial)>
        trial_replicas;
    std::function<std::vector<Candidate>(const std::string& search)> trials;
    std::function<std::vector<Candidate>()> claims;
    std::function<std::vector<Candidate>(const std::string& prices)> gpus;
};

// Complete line's CURRENT: verbs and subverbs, the flags of the verb and the global ones,
// a flag's values (values.h), job and search names, or a job file; only candidates that
// start with CURRENT. The replicas of --replica are those of the job named on the line
// (`logs JOB`) or of the trial's job (`tune logs SEARCH --trial T`), the trials of --trial
// those of the search (`tune logs SEARCH`): their numbers while CURRENT is empty or a
// number, else their names.
Completion complete(const TypedLine& line, const NameSources& names);

// Write completion as `kftrain __complete` prints it.
std::string format_completion(const Completion& completion);

}  // namespace kftrain::cli::completion
