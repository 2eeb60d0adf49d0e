#include "manifest/load.h"

#include <fmt/format.h>

#include "manifest/convert.h"
#include "manifest/overrides.h"
#include "manifest/retries.h"
#include "manifest/trial_parameters.h"
#include "manifest/validate.h"
#include "manifest/yaml/input.h"
#include "manifest/yaml/node_check.h"
#include "util/bounded_read.h"

namespace kftrain::manifest {
namespace {

using util::error;

// Record the 1-based line of every key so messages can point at it.
void record_lines(const YAML::Node& node, const std::string& path, SourceMap& source) {
    if (node.Mark().line >= 0) {
        source.lines[path] = node.Mark().line + 1;
    }
    if (node.IsMap()) {
        for (const auto& entry : node) {
            std::string key = entry.first.as<std::string>();
            std::string child = path.empty() ? key : path + "." + key;
            source.lines[child] = entry.first.Mark().line + 1;
            record_lines(entry.second, child, source);
            source.lines[child] = entry.first.Mark().line + 1;
        }
    } else if (node.IsSequence()) {
        for (size_t i = 0; i < node.size(); ++i) {
            record_lines(node[i], fmt::format("{}[{}]", path, i), source);
        }
    }
}

// Apply -n, --kind, --queue, --priority-class and --retries, each recorded as the key's source.
void apply_key_flags(YAML::Node& root, const Overrides& overrides, SourceMap& source) {
    if (overrides.namespace_) {
        root["namespace"] = *overrides.namespace_;
        source.from_flags["namespace"] = "--namespace";
    }
    if (overrides.kind) {
        root["kind"] = kind_name(*overrides.kind);
        source.from_flags["kind"] = "--kind";
    }
    if (overrides.queue) {
        root["queue"] = *overrides.queue;
        source.from_flags["queue"] = "--queue";
    }
    if (overrides.priority_class) {
        root["priorityClass"] = *overrides.priority_class;
        source.from_flags["priorityClass"] = "--priority-class";
    }
    // A runPolicy that is not a map is left for the schema's check to name.
    if (overrides.retries && (!root["runPolicy"] || root["runPolicy"].IsMap())) {
        root["runPolicy"]["backoffLimit"] = backoff_limit_for_retries(*overrides.retries);
        source.from_flags["runPolicy.backoffLimit"] = "--retries";
    }
}

// Record the flags a command line wrote keys of the text from (kftrain run), over a --set a
// flag was turned into. A key the text does not hold came from no flag (run writes only what
// it was given), and stays not given.
void record_key_flags(const Overrides& overrides, SourceMap& source) {
    for (const auto& [path, flag] : overrides.key_flags) {
        if (source.lines.count(path) != 0 || source.from_flags.count(path) != 0) {
            source.from_flags[path] = flag;
        }
    }
}

}  // namespace

util::Result<std::string> read_file(const std::string& path) {
    return util::read_file(path, k_max_input_bytes,
                           "kftrain reads job files, templates and catalogs of a few KiB");
}

util::Result<JobSpec> load_job_file(const std::string& path, const Overrides& overrides) {
    auto text = read_file(path);
    if (!text) {
        return util::error(text.error());
    }
    return load_job_text(*text, path, overrides);
}

util::Result<JobSpec> load_job_text(const std::string& text, const std::string& display_name,
                                    const Overrides& overrides) {
    SourceMap source;
    source.file = display_name;
    auto parsed = parse_yaml(text, display_name);
    if (!parsed) {
        return parsed.error_value();
    }
    YAML::Node root = *parsed;
    if (root.IsNull()) {
        return error(
            fmt::format("{}: the job file is empty (kftrain init writes a starter)", display_name));
    }
    if (!root.IsMap()) {
        // Nothing of its content: it may be any file (a key, a password file), named by mistake
        // or by an untrusted caller.
        return error(fmt::format("{}:{}: expected a map of job settings (got {})", display_name,
                                 root.Mark().line + 1,
                                 root.IsSequence() ? "a list" : "text, not key: value lines"));
    }
    record_lines(root, "", source);
    if (overrides.sets.size() > k_max_set_flags) {
        return error(
            fmt::format("--set: given {} times; at most {} (put the settings in the "
                        "job file instead)",
                        overrides.sets.size(), k_max_set_flags));
    }
    std::vector<std::string> sets = overrides.sets;
    auto placeholder_values = take_placeholder_sets(sets);  // --set trialParameters.NAME=VALUE
    if (!placeholder_values) {
        return placeholder_values.error_value();
    }
    for (const auto& assignment : sets) {
        auto applied = apply_set(root, assignment, source);
        if (!applied) {
            return util::error(applied.error());
        }
    }
    apply_key_flags(root, overrides, source);
    record_key_flags(overrides, source);
    auto checked = check_against_schema(root, source);
    if (!checked) {
        return util::error(checked.error());
    }
    JobSpec converted = to_job_spec(root);
    converted.source = std::move(source);
    auto filled = apply_placeholder_sets(converted, *placeholder_values);
    if (!filled) {
        return filled.error_value();
    }
    JobSpec spec = std::move(*filled);
    auto valid = validate_job(spec);
    if (!valid) {
        return util::error(valid.error());
    }
    return spec;
}

bool SourceMap::given(const std::string& path) const {
    if (lines.count(path) != 0) {
        return true;
    }
    for (const auto& [flagged, flag] : from_flags) {
        if (flagged == path || flagged.rfind(path + ".", 0) == 0) {
            return true;
        }
    }
    return false;
}

std::string SourceMap::locate(const std::string& path) const {
    for (const auto& [flagged, flag] : from_flags) {
        bool covers = path == flagged || path.rfind(flagged + ".", 0) == 0 ||
                      path.rfind(flagged + "[", 0) == 0;
        if (covers) {
            return flag == "--set" ? "--set " + path : flag;
        }
        if (flag == "--set" && flagged.rfind(path + ".", 0) == 0) {
            return "--set " + flagged;
        }
    }
    std::string probe = path;
    while (true) {
        auto it = lines.find(probe);
        if (it != lines.end() && !probe.empty()) {
            return fmt::format("{}:{}: {}", file, it->second, path);
        }
        size_t cut = probe.find_last_of(".[");
        if (cut == std::string::npos) {
            break;
        }
        probe = probe.substr(0, cut);
    }
    return fmt::format("{}: {}", file, path);
}

}  // namespace kftrain::manifest
