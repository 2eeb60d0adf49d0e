#include "mcp/arguments.h"

#include <fmt/format.h>

#include "util/json_text.h"

namespace kftrain::mcp {

std::string describe_value(const nlohmann::json& value) {
    std::string text = util::json_text(value);
    if (text.size() > 60) {
        text = text.substr(0, 57) + "...";
    }
    return text;
}

const nlohmann::json* ArgumentReader::find(const char* name) const {
    auto it = m_args.find(name);
    if (it == m_args.end() || it->is_null()) {
        return nullptr;
    }
    return &*it;
}

void ArgumentReader::refuse(std::string message) {
    if (!m_error) {
        m_error = std::move(message);
    }
}

std::string ArgumentReader::text(const char* name, const std::string& fallback) {
    const nlohmann::json* value = find(name);
    if (value == nullptr) {
        return fallback;
    }
    if (!value->is_string() || value->get_ref<const std::string&>().empty() ||
        value->get_ref<const std::string&>().find('\0') != std::string::npos) {
        refuse(fmt::format("argument {} must be a non-empty string without NUL (got {})", name,
                           describe_value(*value)));
        return fallback;
    }
    return value->get<std::string>();
}

bool ArgumentReader::flag(const char* name, bool fallback) {
    const nlohmann::json* value = find(name);
    if (value == nullptr) {
        return fallback;
    }
    if (!value->is_boolean()) {
        refuse(fmt::format("argument {} must be true or false (got {})", name,
                           describe_value(*value)));
        return fallback;
    }
    return value->get<bool>();
}

std::optional<long long> ArgumentReader::integer(const char* name, long long min, long long max) {
    const nlohmann::json* value = find(name);
    if (value == nullptr) {
        return std::nullopt;
    }
    bool whole =
        value->is_number_integer() || value->is_number_unsigned() ||
        (value->is_number_float() &&
         value->get<double>() == static_cast<double>(static_cast<long long>(value->get<double>())));
    if (!whole || value->get<double>() < static_cast<double>(min) ||
        value->get<double>() > static_cast<double>(max)) {
        refuse(fmt::format("argument {} must be an integer from {} to {} (got {})", name, min, max,
                           describe_value(*value)));
        return std::nullopt;
    }
    return static_cast<long long>(value->get<double>());
}

std::vector<std::string> ArgumentReader::strings(const char* name, size_t max_items) {
    const nlohmann::json* value = find(name);
    if (value == nullptr) {
        return {};
    }
    if (!value->is_array() || value->size() > max_items) {
        refuse(fmt::format("argument {} must be an array of at most {} strings (got {})", name,
                           max_items, describe_value(*value)));
        return {};
    }
    std::vector<std::string> items;
    for (const auto& item : *value) {
        if (!item.is_string() || item.get_ref<const std::string&>().empty() ||
            item.get_ref<const std::string&>().find('\0') != std::string::npos) {
            refuse(fmt::format("argument {} must hold non-empty strings (got {})", name,
                               describe_value(item)));
            return {};
        }
        items.push_back(item.get<std::string>());
    }
    return items;
}

std::vector<long long> ArgumentReader::integers(const char* name, long long min, long long max,
                                                size_t max_items) {
    const nlohmann::json* value = find(name);
    if (value == nullptr) {
        return {};
    }
    if (!value->is_array() || value->empty() || value->size() > max_items) {
        refuse(fmt::format("argument {} must be an array of 1 to {} integers (got {})", name,
                           max_items, describe_value(*value)));
        return {};
    }
    std::vector<long long> items;
    for (const auto& item : *value) {
        if (!item.is_number_integer() || item.get<long long>() < min ||
            item.get<long long>() > max) {
            refuse(fmt::format("argument {} must hold integers from {} to {} (got {})", name, min,
                               max, describe_value(item)));
            return {};
        }
        items.push_back(item.get<long long>());
    }
    return items;
}

util::Status ArgumentReader::finish(std::initializer_list<const char*> known) const {
    if (m_error) {
        return util::error(*m_error);
    }
    for (const auto& [key, value] : m_args.items()) {
        bool found = false;
        for (const char* name : known) {
            found = found || key == name;
        }
        if (!found) {
            std::string names;
            for (const char* name : known) {
                names += names.empty() ? name : fmt::format(", {}", name);
            }
            return util::error(fmt::format("unknown argument {} (this tool takes: {})",
                                           describe_value(key), names));
        }
    }
    return util::ok_status();
}

JobArguments read_job_arguments(ArgumentReader& reader) {
    JobArguments job;
    job.job_file = reader.text("job_file");
    job.job_yaml = reader.text("job_yaml");
    job.sets = reader.strings("set", k_max_list_items);
    if (job.job_file.empty() == job.job_yaml.empty()) {
        reader.refuse("give exactly one of job_file (a path) and job_yaml (the YAML itself)");
    }
    return job;
}

}  // namespace kftrain::mcp
