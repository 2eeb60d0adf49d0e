#pragma once

#include <optional>
#include <string>
#include <vector>

namespace kftrain::cli::completion {

// Return the shells `kftrain completion` prints a script for: bash, zsh, fish.
const std::vector<std::string>& shell_names();

// Return the completion script for shell, one of shell_names(); nullopt for another. Each
// script is thin: it asks `kftrain __complete` (candidates.h) for the candidates of the word
// under the cursor and hands them, or a file completion, to the shell.
std::optional<std::string> completion_script(const std::string& shell);

}  // namespace kftrain::cli::completion
