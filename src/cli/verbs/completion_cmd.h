#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "cli/context.h"
#include "util/result.h"

namespace kftrain::cli {

// Make kftrain's whole command line (app.h's make_app), passed in so that the verb that walks
// it does not depend on the file that registers every verb.
using AppFactory = std::function<std::unique_ptr<CLI::App>(Context& ctx)>;

// Everything `kftrain completion` takes.
struct CompletionOptions {
    std::string shell;  // bash, zsh or fish

    // Nothing to derive.
    util::Status complete(const Context& ctx);
    // Check the shell; the message names the shells there are scripts for.
    util::Status validate() const;
    // Print the shell's completion script.
    int run(Context& ctx) const;
};

// Everything the hidden `kftrain __complete PROGRAM WORD...` takes: what the scripts send.
struct CompleteOptions {
    std::vector<std::string> words;  // after "kftrain", the one being completed last
    AppFactory make_app;             // the command line run_cli parses, to walk

    // Nothing to derive.
    util::Status complete(const Context& ctx);
    // Any words will do.
    util::Status validate() const;
    // Print the candidates (completion/candidates.h); always exit 0, printing nothing to err.
    int run(Context& ctx) const;
};

// Register `kftrain completion SHELL` and the hidden `kftrain __complete` its scripts call;
// make_app makes the whole command line, whose verbs and flags __complete walks.
void setup_completion(CLI::App& app, Context& ctx, AppFactory make_app);

}  // namespace kftrain::cli
