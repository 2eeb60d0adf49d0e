#include "manifest/trial_parameters.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstring>
#include <functional>

namespace kftrain::manifest {
namespace {

using util::error;

bool is_name_char(char c) {
    return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_' || c == '-';
}

// Add the placeholders of one value to found (each name once); field names where it is.
util::Status scan_value(const JobSpec& job, const std::string& value, const std::string& field,
                        std::vector<Placeholder>& found) {
    const std::string open = k_placeholder_open;
    for (auto at = value.find(open); at != std::string::npos; at = value.find(open, at + 1)) {
        const auto close = value.find('}', at);
        const std::string where = job.source.locate(field);
        if (close == std::string::npos) {
            return error(
                fmt::format("{}: \"{}\" is not closed with '}}'; write ${{trialParameters.NAME}}",
                            where, value.substr(at)));
        }
        const std::string name = value.substr(at + open.size(), close - at - open.size());
        if (name.empty()) {
            return error(
                fmt::format("{}: \"{}\" names no parameter; write ${{trialParameters.NAME}}", where,
                            placeholder_text(name)));
        }
        if (!std::all_of(name.begin(), name.end(), is_name_char)) {
            return error(fmt::format("{}: \"{}\": a parameter name is letters, digits, '_' and '-'",
                                     where, placeholder_text(name)));
        }
        const bool seen = std::any_of(found.begin(), found.end(),
                                      [&](const Placeholder& p) { return p.name == name; });
        if (!seen) {
            found.push_back({name, field});
        }
    }
    return util::ok_status();
}

// Call visit on every value a placeholder may be in: command, args and plain env values.
void for_each_value(
    JobSpec& job, const std::function<void(std::string& value, const std::string& field)>& visit) {
    for (std::size_t i = 0; i < job.command.size(); ++i) {
        visit(job.command[i], fmt::format("command[{}]", i));
    }
    if (job.args) {
        for (std::size_t i = 0; i < job.args->size(); ++i) {
            visit((*job.args)[i], fmt::format("args[{}]", i));
        }
    }
    for (auto& [name, var] : job.env) {
        if (var.secret_name.empty()) {
            visit(var.value, "env." + name);
        }
    }
}

std::string replace_all(std::string text, const std::string& from, const std::string& to) {
    for (auto at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size())) {
        text.replace(at, from.size(), to);
    }
    return text;
}

// Return "lr, wd", or "none" when the job uses no placeholder.
std::string names_of(const std::vector<Placeholder>& placeholders) {
    std::vector<std::string> names;
    for (const auto& p : placeholders) {
        names.push_back(placeholder_text(p.name));
    }
    return names.empty() ? std::string("none") : fmt::format("{}", fmt::join(names, ", "));
}

}  // namespace

std::string placeholder_text(const std::string& name) {
    return k_placeholder_open + name + "}";
}

util::Result<std::vector<Placeholder>> find_placeholders(const JobSpec& job) {
    std::vector<Placeholder> found;
    util::Status status = util::ok_status();
    JobSpec copy = job;
    for_each_value(copy, [&](std::string& value, const std::string& field) {
        if (status) {
            status = scan_value(job, value, field, found);
        }
    });
    if (!status) {
        return status.error_value();
    }
    return found;
}

JobSpec fill_placeholders(const JobSpec& job, const std::map<std::string, std::string>& values) {
    JobSpec filled = job;
    for_each_value(filled, [&](std::string& value, const std::string&) {
        for (const auto& [name, text] : values) {
            value = replace_all(value, placeholder_text(name), text);
        }
    });
    return filled;
}

util::Result<std::map<std::string, std::string>> take_placeholder_sets(
    std::vector<std::string>& sets) {
    std::map<std::string, std::string> values;
    const std::string prefix = k_placeholder_set_prefix;
    std::vector<std::string> rest;
    for (const auto& assignment : sets) {
        if (assignment.rfind(prefix, 0) != 0) {
            rest.push_back(assignment);
            continue;
        }
        const auto eq = assignment.find('=');
        const std::string name = assignment.substr(prefix.size(), eq - prefix.size());
        if (eq == std::string::npos || name.empty()) {
            return error(fmt::format(
                "--set {}: expected trialParameters.NAME=VALUE, e.g. trialParameters.lr=0.01",
                assignment));
        }
        values[name] = assignment.substr(eq + 1);
    }
    sets = std::move(rest);
    return values;
}

util::Result<JobSpec> apply_placeholder_sets(const JobSpec& job,
                                             const std::map<std::string, std::string>& values) {
    if (values.empty()) {
        return job;
    }
    auto used = find_placeholders(job);
    if (!used) {
        return used.error_value();
    }
    for (const auto& [name, value] : values) {
        const std::string& wanted = name;  // a lambda cannot capture a structured binding
        const bool found = std::any_of(used->begin(), used->end(),
                                       [&](const Placeholder& p) { return p.name == wanted; });
        if (!found) {
            return error(fmt::format(
                "--set trialParameters.{}={}: the job file uses no {} in command, args or env "
                "(it uses {})",
                name, value, placeholder_text(name), names_of(*used)));
        }
    }
    return fill_placeholders(job, values);
}

util::Status require_no_placeholders(const JobSpec& job) {
    auto used = find_placeholders(job);
    if (!used) {
        return used.error_value();
    }
    if (used->empty()) {
        return util::ok_status();
    }
    std::vector<std::string> where;
    std::vector<std::string> sets;
    for (const auto& p : *used) {
        where.push_back(
            fmt::format("{}: {}", job.source.locate(p.field), placeholder_text(p.name)));
        sets.push_back(fmt::format("--set trialParameters.{}=VALUE", p.name));
    }
    return error(fmt::format(
        "{}: only `kftrain tune` fills Katib's placeholders, each trial with its own value; to "
        "render, submit or measure this job, give {} a value: {}",
        fmt::join(where, "; "), used->size() == 1 ? "it" : "each", fmt::join(sets, " ")));
}

}  // namespace kftrain::manifest
