#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "cli/context.h"
#include "util/result.h"

namespace kftrain::cli {

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

    // Nothing to derive.
    util::Status complete(const Context& ctx);
    // Any words will do.
    util::Status validate() const;
    // Print the candidates (completion/candidates.h); always exit 0, printing nothing to err.
    int run(Context& ctx) const;
};

// Register `kftrain completion SHELL` and the hidden `kftrain __complete` its scripts call.
void setup_completion(CLI::App& app, Context& ctx);

}  // namespace kftrain::cli
