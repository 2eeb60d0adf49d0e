#include "backend/local/python_program.h"

#include <filesystem>
#include <fstream>
#include <sstream>

#include "backend/local/process/command_line.h"
#include "util/text.h"

namespace kftrain::backend::local {
namespace {

namespace fs = std::filesystem;

constexpr size_t k_max_script_lines = 5000;
constexpr size_t k_max_script_bytes = size_t{1} << 20;

bool is_python(const std::string& program) {
    return fs::path(program).filename().string().rfind("python", 0) == 0;
}

bool is_script(const std::string& word) {
    return word.size() > 3 && word.compare(word.size() - 3, 3, ".py") == 0;
}

// Return whether a dotted module name is torch or below it.
bool is_torch(const std::string& module) {
    return module == "torch" || module.rfind("torch.", 0) == 0;
}

// Return whether one statement imports torch.
bool statement_imports_torch(const std::string& statement) {
    std::istringstream words(statement);
    std::string first;
    std::string module;
    words >> first;
    if (first == "from") {
        return words >> module && is_torch(module);
    }
    if (first != "import") {
        return false;
    }
    std::string rest;
    std::getline(words, rest);
    for (const std::string& part : util::split(rest, ',')) {
        std::istringstream name(part);
        if (name >> module && is_torch(module)) {
            return true;
        }
    }
    return false;
}

std::string path_in(const std::string& word, const std::string& folder) {
    return fs::path(word).is_absolute() || folder.empty() ? word
                                                          : (fs::path(folder) / word).string();
}

// Return the Python a program's shebang names (`#!/usr/bin/python3`, `#!/usr/bin/env
// python3`), "" when none.
std::string shebang_python(const std::string& program, const std::string& folder) {
    std::string path = path_in(program, folder);
    if (program.find('/') == std::string::npos) {
        auto found = resolve_command(program, "");
        path = found ? *found : "";
    }
    std::ifstream in(path);
    std::string line;
    if (path.empty() || !std::getline(in, line) || line.rfind("#!", 0) != 0) {
        return "";
    }
    std::istringstream words(line.substr(2));
    std::string interpreter;
    words >> interpreter;
    if (fs::path(interpreter).filename() == "env") {
        while (words >> interpreter && interpreter.rfind('-', 0) == 0) {
        }
    }
    return is_python(interpreter) ? interpreter : "";
}

}  // namespace

bool imports_torch(std::string_view source) {
    std::istringstream lines{std::string(source)};
    std::string line;
    for (size_t read = 0; read < k_max_script_lines && std::getline(lines, line); ++read) {
        for (const std::string& statement : util::split(line, ';')) {
            if (statement_imports_torch(statement)) {
                return true;
            }
        }
    }
    return false;
}

std::optional<PythonProgram> python_program(const std::vector<std::string>& words,
                                            const std::string& folder) {
    if (words.empty()) {
        return std::nullopt;
    }
    size_t at = 0;
    PythonProgram found;
    if (fs::path(words[0]).filename() == "env" && words.size() > 1) {
        at = 1;  // env python3 train.py
    }
    if (is_python(words[at])) {
        found.interpreter = words[at];
    } else if (auto named = shebang_python(words[at], folder); !named.empty()) {
        found.interpreter = named;
        if (is_script(words[at])) {
            found.script = words[at];  // the program is the user's own script
            return found;
        }
    } else {
        return std::nullopt;
    }
    for (size_t i = at + 1; i < words.size(); ++i) {
        if (is_script(words[i])) {
            found.script = words[i];
            return found;
        }
    }
    if (!is_python(words[at])) {
        found.script = words[at];  // a Python program of its own (a launcher, ./train)
    }
    return found;
}

bool script_imports_torch(const PythonProgram& program, const std::string& folder) {
    if (program.script.empty()) {
        return false;
    }
    std::ifstream in(path_in(program.script, folder), std::ios::binary);
    std::string text(k_max_script_bytes, '\0');
    in.read(text.data(), static_cast<std::streamsize>(text.size()));
    text.resize(static_cast<size_t>(in.gcount()));
    return imports_torch(text);
}

}  // namespace kftrain::backend::local
