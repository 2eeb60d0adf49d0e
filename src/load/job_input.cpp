#include "load/job_input.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstring>
#include <filesystem>

#include "job/exit_codes.h"
#include "load/collect.h"
#include "load/derived_runtime.h"
#include "manifest/load.h"
#include "manifest/render/render.h"
#include "manifest/retries.h"
#include "manifest/trial_parameters.h"
#include "manifest/yaml/emit.h"
#include "manifest/yaml/input.h"
#include "util/bounded_read.h"

namespace kftrain::load {
namespace {

constexpr const char* k_pipe_hint =
    "pipe the job file in (envsubst < job.yaml | kftrain submit -f -) or give its path";

// Return the job file on standard input, read on the first call only: a second read would
// find it drained.
const util::Result<std::string>& stdin_job_text() {
    static const util::Result<std::string> text = read_job_stream(STDIN_FILENO);
    return text;
}

}  // namespace

namespace {

// Return whether name can name an environment variable: [A-Za-z_][A-Za-z0-9_]*.
bool is_variable_name(const std::string& name) {
    if (name.empty() || std::isdigit(static_cast<unsigned char>(name[0]))) {
        return false;
    }
    for (char c : name) {
        if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') {
            return false;
        }
    }
    return true;
}

}  // namespace

util::Status check_env_from_shell(const std::vector<std::string>& names) {
    for (const auto& name : names) {
        if (!is_variable_name(name)) {
            return util::error(fmt::format(
                "--env-from-shell: must be a variable name: letters, digits and _ (got {})", name));
        }
    }
    return util::ok_status();
}

util::Result<std::string> read_job_stream(int fd) {
    if (::isatty(fd) == 1) {
        return util::error(
            fmt::format("-f/--file: standard input is a terminal; {} (got -)", k_pipe_hint));
    }
    // Read one byte past the limit at most, so an endless stream ends at once (parse_yaml
    // refuses what is past the limit as it does for a file), and give up on a stdin that
    // stays silent or never ends.
    auto read = util::read_stream(fd, manifest::k_max_input_bytes, util::k_read_idle_limit);
    if (!read) {
        return util::error(fmt::format("-f/--file: standard input: {} (got -)", read.error()));
    }
    const std::string& text = *read;
    if (text.empty()) {
        return util::error(
            fmt::format("-f/--file: standard input is empty; {} (got -)", k_pipe_hint));
    }
    return text;
}

util::Status refuse_stdin(const std::string& flag, const std::string& value) {
    if (value == "-") {
        return util::error(
            fmt::format("{}: standard input is read only by -f/--file; give a file (got -)", flag));
    }
    return util::ok_status();
}

util::Result<manifest::JobKind> parse_kind_flag(const std::string& text) {
    auto kind = manifest::parse_kind(text);
    if (!kind) {
        return util::error(fmt::format("--kind: must be {} (got {})", manifest::k_kind_choices,
                                       text.empty() ? "\"\"" : text),
                           k_exit_bad_input);
    }
    return *kind;
}

namespace {

// Apply --code as a --set of code.path: from the current folder, as a flag's path is (a
// job file's code.path is from the job file's folder).
util::Status add_code_flag(const JobInput& input, manifest::Overrides& overrides) {
    if (input.code.empty()) {
        return util::ok_status();
    }
    if (auto refused = refuse_stdin("--code", input.code); !refused) {
        return refused;
    }
    std::string folder = input.code;
    if (folder.front() != '/' && input.code_root.empty()) {
        folder = std::filesystem::current_path().string() + "/" + folder;
    }
    overrides.sets.push_back("code.path=" + folder);
    overrides.key_flags["code.path"] = "--code";
    return util::ok_status();
}

}  // namespace

util::Status check_retries(const std::optional<int>& retries) {
    if (retries && (*retries < 0 || *retries > manifest::k_max_retries)) {
        return util::error(fmt::format("--retries: must be 0 (the first failure fails the job) "
                                       "or more, at most {} (got {})",
                                       manifest::k_max_retries, *retries),
                           k_exit_bad_input);
    }
    return util::ok_status();
}

util::Result<manifest::JobSpec> load_job(const JobInput& input, const job::BackendOptions& global) {
    if (auto refused = refuse_stdin("--template", input.template_file); !refused) {
        return refused.error_value();
    }
    manifest::Overrides overrides;
    overrides.sets = input.sets;
    overrides.key_flags = input.key_flags;
    if (auto code = add_code_flag(input, overrides); !code) {
        return code.error_value();
    }
    if (!global.namespace_.empty()) {
        overrides.namespace_ = global.namespace_;
    }
    if (input.kind) {
        auto kind = parse_kind_flag(*input.kind);
        if (!kind) {
            return kind.error_value();
        }
        overrides.kind = *kind;
    }
    if (input.queue && input.queue->empty()) {
        return util::error("--queue: must name a LocalQueue (got \"\")", k_exit_bad_input);
    }
    if (input.priority_class && input.priority_class->empty()) {
        return util::error("--priority-class: must name a WorkloadPriorityClass (got \"\")",
                           k_exit_bad_input);
    }
    if (auto retries = check_retries(input.retries); !retries) {
        return retries.error_value();
    }
    overrides.retries = input.retries;
    overrides.queue = input.queue;
    overrides.priority_class = input.priority_class;
    if (input.file.empty() && !input.job_yaml) {
        return util::error(
            "-f/--file: give the job file, or its text with --job-yaml (got neither)",
            k_exit_bad_input);
    }
    if (input.job_yaml) {
        if (input.job_yaml->empty()) {
            return util::error("--job-yaml: must hold the job file's text (got \"\")",
                               k_exit_bad_input);
        }
        if (input.job_yaml->size() > manifest::k_max_input_bytes) {
            return util::error(fmt::format("--job-yaml: {} bytes; at most {} (got a longer text)",
                                           input.job_yaml->size(), manifest::k_max_input_bytes),
                               k_exit_bad_input);
        }
        return manifest::load_job_text(*input.job_yaml, k_job_yaml_name, overrides);
    }
    if (input.file != "-") {
        return manifest::load_job_file(input.file, overrides);
    }
    const auto& text = stdin_job_text();
    if (!text) {
        return text.error_value();
    }
    return manifest::load_job_text(*text, k_stdin_name, overrides);
}

util::Result<std::string> job_file_text(const JobInput& input) {
    if (input.job_yaml) {
        return *input.job_yaml;
    }
    if (input.file == "-") {
        return stdin_job_text();
    }
    return manifest::read_file(input.file);
}

util::Result<manifest::Template> job_template(const JobInput& input, manifest::JobKind kind) {
    if (input.template_file.empty()) {
        return manifest::default_template(kind);
    }
    auto text = manifest::read_file(input.template_file);
    if (!text) {
        return util::error("--template: " + text.error());
    }
    return manifest::Template{*text, input.template_file};
}

util::Result<std::optional<manifest::CodeBundle>> read_job_code(const manifest::JobSpec& spec,
                                                                const JobInput& input,
                                                                std::ostream& warn) {
    if (spec.code.path.empty()) {
        return std::optional<manifest::CodeBundle>();
    }
    const std::string folder = code_folder(spec, input.file == "-" || input.job_yaml.has_value());
    // The reader names code.path; a flag that gave it (--code) is named instead.
    auto placed = [&](util::Error error) {
        const std::string where = spec.source.locate("code.path");
        const std::string key = "code.path: ";
        if (where.rfind("--", 0) == 0 && where.rfind("--set ", 0) != 0 &&
            error.message.rfind(key, 0) == 0) {
            error.message = where + ": " + error.message.substr(key.size());
        }
        return error;
    };
    auto dir = open_code_folder(folder, input.code_root);
    if (!dir) {
        return placed(dir.error_value());
    }
    auto bundle = collect_code(std::move(*dir), folder, spec.code.exclude, warn);
    if (!bundle) {
        return placed(bundle.error_value());
    }
    return std::optional<manifest::CodeBundle>(std::move(*bundle));
}

util::Result<RenderedJob> load_and_render(const JobInput& input, const job::BackendOptions& global,
                                          std::ostream& warn) {
    auto spec = load_job(input, global);
    if (!spec) {
        return util::error(spec.error());
    }
    // render and submit (both backends) pass here; tune fills placeholders per trial instead.
    if (auto filled = manifest::require_no_placeholders(*spec); !filled) {
        return util::error(filled.error(), k_exit_bad_input);
    }
    auto code = read_job_code(*spec, input, warn);
    if (!code) {
        return code.error_value();
    }
    if (*code) {
        manifest::attach_code(*spec, **code, {spec->name, manifest::CodeOwnerKind::job});
    }
    auto tmpl = job_template(input, spec->kind);
    if (!tmpl) {
        return tmpl.error_value();
    }
    auto rendered = manifest::render_job(*spec, *tmpl);
    if (!rendered) {
        return util::error(rendered.error());
    }
    RenderedJob job{std::move(spec.value()), *rendered, std::move(*code), YAML::Node()};
    if (job.code) {
        const std::string kind = manifest::kind_name(job.spec.kind);
        if (auto fits = manifest::check_job_bytes(job.manifest, *job.code, kind); !fits) {
            return fits.error_value();
        }
        job.code_config_map = manifest::code_config_map(
            job.spec, *job.code, {job.spec.name, manifest::CodeOwnerKind::job});
    }
    if (auto base = builtin_runtime(job.spec.runtime); base && needs_derived_runtime(job.spec)) {
        auto derived = derive_runtime(job.spec, *base);
        if (!derived) {
            return derived.error_value();
        }
        refer_to_runtime(job.manifest, *derived);
        job.runtime = derived->manifest;
    }
    return job;
}

}  // namespace kftrain::load
