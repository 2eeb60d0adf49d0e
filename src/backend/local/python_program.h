#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kftrain::backend::local {

// The Python a job's command runs: the interpreter (as the command or a shebang names it) and
// the script it reads: the first *.py word after the program, else a program that is a Python
// script itself (a launcher such as torchrun, ./train); "" for python3 -c and the like.
struct PythonProgram {
    std::string interpreter;
    std::string script;  // a path as the command gives it, relative to the code folder
};

// Return whether Python source imports torch or a module of it at any line: `import torch`,
// `import os, torch.nn as nn`, `from torch.utils import data`, indented ones too (a try).
bool imports_torch(std::string_view source);

// Return the Python program that words (the job's command, then its args) run: python*
// itself, `env python3`, or a program whose shebang names a Python (a script, torchrun);
// folder is where relative scripts and programs are read. nullopt when it runs no Python.
std::optional<PythonProgram> python_program(const std::vector<std::string>& words,
                                            const std::string& folder);

// Return whether the program's script (read from folder) imports torch; false without one.
bool script_imports_torch(const PythonProgram& program, const std::string& folder);

}  // namespace kftrain::backend::local
