#include "history/record.h"

#include <fmt/format.h>

#include "util/json_fields.h"
#include "util/json_optional.h"
#include "util/json_text.h"
#include "util/redact.h"
#include "util/text.h"

namespace kftrain::history {
namespace {

using nlohmann::json;

// The parts of a record after its summary, by the "part" each line names.
constexpr const char* k_part_job = "job";
constexpr const char* k_part_pods = "pods";
constexpr const char* k_part_events = "events";
constexpr const char* k_part_diagnosis = "diagnosis";
constexpr const char* k_part_log = "log";

json cost_json(const RecordCost& c) {
    return {{"amount", util::optional_json(c.amount)},
            {"currency", c.currency},
            {"per_hour", c.per_hour},
            {"basis", c.basis},
            {"prices", c.prices},
            {"unpriced", c.unpriced}};
}

// Read one field of a summary: a value of the wrong type is named in damaged and left as it
// was, so one bad field never costs the rest.
template <typename T>
void read_field(const json& doc, const char* key, T& out, std::vector<std::string>& damaged,
                const std::string& where = "") {
    const json& value = util::member(doc, key);
    if (value.is_null()) {
        return;
    }
    bool read = true;
    if constexpr (std::is_same_v<T, std::optional<double>>) {
        read = value.is_number();
        if (read) {
            out = value.get<double>();
        }
    } else if constexpr (std::is_same_v<T, int>) {
        const auto n = util::json_number<int>(value);
        read = n.has_value();
        out = n.value_or(out);
    } else {
        try {
            out = value.get<T>();
        } catch (const json::exception&) {
            read = false;
        }
    }
    if (!read) {
        damaged.push_back(
            fmt::format("field '{}{}' is not readable: {}", where, key, util::json_excerpt(value)));
    }
}

RecordCost cost_from_json(const json& doc, std::vector<std::string>& damaged) {
    RecordCost c;
    if (!doc.is_object()) {
        if (!doc.is_null()) {
            damaged.push_back("field 'cost' is not an object");
        }
        return c;
    }
    read_field(doc, "amount", c.amount, damaged, "cost.");
    read_field(doc, "currency", c.currency, damaged, "cost.");
    std::optional<double> per_hour;
    read_field(doc, "per_hour", per_hour, damaged, "cost.");
    c.per_hour = per_hour.value_or(0);
    read_field(doc, "basis", c.basis, damaged, "cost.");
    read_field(doc, "prices", c.prices, damaged, "cost.");
    read_field(doc, "unpriced", c.unpriced, damaged, "cost.");
    return c;
}

json log_json(const ReplicaLog& log) {
    return {{"part", k_part_log},
            {"replica", log.replica},
            {"previous", log.previous},
            {"cut", log.cut},
            {"lines", log.lines}};
}

// Read one part line into the record; false when it is not one kftrain wrote.
bool read_part(const json& doc, Record& record) {
    const std::string part = util::string_at(doc, "part");
    if (part == k_part_log) {
        ReplicaLog log;
        log.replica = util::string_at(doc, "replica");
        const json& lines = util::member(doc, "lines");
        if (log.replica.empty() || !lines.is_array()) {
            return false;
        }
        log.previous = util::member(doc, "previous").is_boolean() && doc.at("previous").get<bool>();
        log.cut = util::member(doc, "cut").is_boolean() && doc.at("cut").get<bool>();
        for (const json& line : lines) {
            if (line.is_string()) {
                log.lines.push_back(line.get<std::string>());
            }
        }
        record.logs.push_back(std::move(log));
        return true;
    }
    const json& value = util::member(doc, "value");
    if (part == k_part_job) {
        record.job = value;
    } else if (part == k_part_pods) {
        record.pods = value;
    } else if (part == k_part_events) {
        record.events = value;
    } else if (part == k_part_diagnosis) {
        record.diagnosis = value;
    } else {
        return false;
    }
    return true;
}

// Mask the credentials in value and everything below it (depth-bounded: kubectl's JSON
// nests far less than util::k_max_json_depth).
void mask_value(json& value, int depth) {
    if (depth > util::k_max_json_depth) {
        return;
    }
    if (value.is_string()) {
        value = util::mask_secrets(value.get<std::string>());
    } else if (value.is_array()) {
        for (json& item : value) {
            mask_value(item, depth + 1);
        }
    } else if (value.is_object()) {
        // An env entry {name, value} of a credential's name: its value goes whole.
        if (value.contains("name") && value["name"].is_string() && value.contains("value") &&
            util::names_credential(value["name"].get<std::string>())) {
            value["value"] = "***";
        }
        for (auto& [key, item] : value.items()) {
            mask_value(item, depth + 1);
        }
    }
}

}  // namespace

void mask_record(Record& record) {
    for (json* part : {&record.job, &record.pods, &record.events, &record.diagnosis}) {
        mask_value(*part, 0);
    }
}

ReplicaLog keep_log(const std::string& replica, bool previous,
                    const std::vector<std::string>& lines) {
    ReplicaLog log;
    log.replica = replica;
    log.previous = previous;
    std::size_t bytes = 0;
    std::size_t first = lines.size();
    // The last lines within both caps: the end of a log says how it ended.
    while (first > 0 && lines.size() - first < k_record_log_lines) {
        const std::size_t size = lines[first - 1].size() + 1;
        if (bytes + size > k_record_log_bytes) {
            break;
        }
        bytes += size;
        --first;
    }
    log.cut = first > 0;
    for (std::size_t i = first; i < lines.size(); ++i) {
        log.lines.push_back(util::mask_secrets(lines[i]));
    }
    return log;
}

json summary_to_json(const Summary& s) {
    return {{"version", s.version},
            {"context", s.context},
            {"namespace", s.namespace_},
            {"name", s.name},
            {"uid", s.uid},
            {"kind", s.kind},
            {"phase", s.phase},
            {"reason", s.reason},
            {"created", s.created},
            {"started", s.started},
            {"finished", s.finished},
            {"recorded", s.recorded},
            {"run_s", util::optional_json(s.run_s)},
            {"replicas", s.replicas},
            {"restarts", s.restarts},
            {"queue", s.queue},
            {"submitted_by", s.submitted_by},
            {"labels", s.labels},
            {"cost", cost_json(s.cost)},
            {"estimated_cost", util::optional_json(s.estimated_cost)},
            {"why", s.why},
            {"partial", s.partial}};
}

Summary summary_from_json(const json& doc, std::vector<std::string>& damaged) {
    Summary s;
    read_field(doc, "version", s.version, damaged);
    read_field(doc, "context", s.context, damaged);
    read_field(doc, "namespace", s.namespace_, damaged);
    read_field(doc, "name", s.name, damaged);
    read_field(doc, "uid", s.uid, damaged);
    read_field(doc, "kind", s.kind, damaged);
    read_field(doc, "phase", s.phase, damaged);
    read_field(doc, "reason", s.reason, damaged);
    read_field(doc, "created", s.created, damaged);
    read_field(doc, "started", s.started, damaged);
    read_field(doc, "finished", s.finished, damaged);
    read_field(doc, "recorded", s.recorded, damaged);
    read_field(doc, "run_s", s.run_s, damaged);
    read_field(doc, "replicas", s.replicas, damaged);
    read_field(doc, "restarts", s.restarts, damaged);
    read_field(doc, "queue", s.queue, damaged);
    read_field(doc, "submitted_by", s.submitted_by, damaged);
    read_field(doc, "labels", s.labels, damaged);
    s.cost = cost_from_json(util::member(doc, "cost"), damaged);
    read_field(doc, "estimated_cost", s.estimated_cost, damaged);
    read_field(doc, "why", s.why, damaged);
    read_field(doc, "partial", s.partial, damaged);
    return s;
}

std::string record_lines(const Record& record) {
    std::string text = util::json_text(summary_to_json(record.summary)) + "\n";
    const std::pair<const char*, const json*> parts[] = {{k_part_job, &record.job},
                                                         {k_part_pods, &record.pods},
                                                         {k_part_events, &record.events},
                                                         {k_part_diagnosis, &record.diagnosis}};
    for (const auto& [part, value] : parts) {
        text += util::json_text(json{{"part", part}, {"value", *value}}) + "\n";
    }
    for (const ReplicaLog& log : record.logs) {
        text += util::json_text(log_json(log)) + "\n";
    }
    return text;
}

util::Result<Record> parse_record(const std::string& text) {
    std::vector<std::string> lines = util::split_lines(text);
    if (lines.empty()) {
        return util::error("empty: not a record");
    }
    const json head = util::parse_untrusted_json(lines.front());
    if (!head.is_object()) {
        return util::error("its first line is not a record's summary");
    }
    Record record;
    record.summary = summary_from_json(head, record.damaged);
    for (std::size_t i = 1; i < lines.size(); ++i) {
        if (lines[i].empty()) {
            continue;
        }
        const json doc = util::parse_untrusted_json(lines[i]);
        if (!doc.is_object() || !read_part(doc, record)) {
            const std::string part = doc.is_object() ? util::string_at(doc, "part") : "";
            record.damaged.push_back(fmt::format("line {} ({}) is not readable", i + 1,
                                                 part.empty() ? "no part" : "part '" + part + "'"));
        }
    }
    return record;
}

}  // namespace kftrain::history
