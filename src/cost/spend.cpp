#include "cost/spend.h"

#include <fmt/format.h>

#include <algorithm>

#include "estimate/units.h"
#include "history/summary.h"
#include "util/text.h"
#include "util/time_text.h"

namespace kftrain::cost {
namespace {

constexpr const char* k_queue_label = "kueue.x-k8s.io/queue-name";

// Return the value of a label of the item, or instead when it has none.
std::string label_or(const SpendItem& item, const std::string& key, const char* instead) {
    auto found = item.labels.find(key);
    return found == item.labels.end() || found->second.empty() ? instead : found->second;
}

std::string key_of(const SpendItem& item, const SpendGrouping& grouping) {
    switch (grouping.key) {
        case SpendKey::Job:
            return item.namespace_.empty() ? item.name : item.namespace_ + "/" + item.name;
        case SpendKey::Namespace:
            return item.namespace_.empty() ? "(none)" : item.namespace_;
        case SpendKey::Queue:
            return item.queue.empty() ? "(none)" : item.queue;
        case SpendKey::Label:
            return label_or(item, grouping.label, "(none)");
        case SpendKey::User:
            return label_or(item, history::k_submitted_by_label, "(unknown)");
    }
    return item.name;
}

// Add one item to a row.
void add_item(SpendRow& row, const SpendItem& item) {
    ++row.jobs;
    if (item.run_s) {
        row.run_s += *item.run_s;
        if (item.replicas > 0) {
            row.replica_hours += *item.run_s * item.replicas / 3600.0;
        }
    } else {
        ++row.unknown_runs;
    }
    if (item.amount) {
        row.amount += *item.amount;
        ++row.priced;
    } else {
        const std::string job =
            item.namespace_.empty() ? item.name : item.namespace_ + "/" + item.name;
        row.unpriced.push_back(fmt::format("{}: {}", job, item.unpriced));
    }
    if (item.estimated) {
        row.estimated += *item.estimated;
        ++row.estimates;
    }
}

// Return the row as JSON: figures as numbers, null where none is known.
nlohmann::ordered_json row_to_json(const SpendRow& row) {
    nlohmann::ordered_json doc;
    doc["key"] = row.key;
    doc["jobs"] = row.jobs;
    doc["run_s"] = row.jobs > row.unknown_runs ? nlohmann::ordered_json(row.run_s) : nullptr;
    doc["unknown_run_time"] = row.unknown_runs;
    doc["replica_hours"] = row.replica_hours;
    doc["cost"] = row.priced > 0 ? nlohmann::ordered_json(row.amount) : nullptr;
    doc["not_priced"] = static_cast<int>(row.unpriced.size());
    doc["estimated_cost"] = row.estimates > 0 ? nlohmann::ordered_json(row.estimated) : nullptr;
    doc["estimates"] = row.estimates;
    return doc;
}

// A number as CSV writes it: plain, no thousands separators; "" for none.
std::string csv_number(bool known, double value) {
    return known ? fmt::format("{:.6g}", value) : "";
}

std::string csv_line(const SpendRow& row, const std::string& currency) {
    std::vector<std::string> fields = {
        csv_field(row.key),
        std::to_string(row.jobs),
        csv_number(row.jobs > row.unknown_runs, row.run_s),
        std::to_string(row.unknown_runs),
        csv_number(true, row.replica_hours),
        csv_number(row.priced > 0, row.amount),
        std::to_string(row.unpriced.size()),
        csv_number(row.estimates > 0, row.estimated),
        csv_field(currency),
    };
    std::string line;
    for (size_t i = 0; i < fields.size(); ++i) {
        line += (i > 0 ? "," : "") + fields[i];
    }
    return line + "\n";
}

}  // namespace

util::Result<SpendGrouping> parse_spend_grouping(const std::string& text) {
    static const std::pair<const char*, SpendKey> k_keys[] = {{"job", SpendKey::Job},
                                                              {"namespace", SpendKey::Namespace},
                                                              {"queue", SpendKey::Queue},
                                                              {"user", SpendKey::User}};
    for (const auto& [name, key] : k_keys) {
        if (text == name) {
            return SpendGrouping{key, ""};
        }
    }
    const std::string prefix = "label:";
    if (text.compare(0, prefix.size(), prefix) == 0 && text.size() > prefix.size()) {
        return SpendGrouping{SpendKey::Label, text.substr(prefix.size())};
    }
    return util::error(
        fmt::format("--by: must be job, namespace, queue, user or label:KEY (got {})",
                    util::excerpt(text, 80)));
}

std::string grouping_name(const SpendGrouping& grouping) {
    switch (grouping.key) {
        case SpendKey::Job:
            return "job";
        case SpendKey::Namespace:
            return "namespace";
        case SpendKey::Queue:
            return "queue";
        case SpendKey::Label:
            return "label:" + grouping.label;
        case SpendKey::User:
            return "user";
    }
    return "job";
}

SpendItem spend_of_record(const history::Summary& summary) {
    SpendItem item;
    item.name = summary.name;
    item.namespace_ = summary.namespace_;
    item.kind = summary.kind;
    item.queue = summary.queue;
    item.labels = summary.labels;
    if (!summary.submitted_by.empty()) {
        item.labels.emplace(history::k_submitted_by_label, summary.submitted_by);
    }
    item.run_s = summary.run_s;
    item.replicas = summary.replicas;
    item.amount = summary.cost.amount;
    item.unpriced = summary.cost.unpriced.empty() ? "no cost recorded" : summary.cost.unpriced;
    item.currency = summary.cost.currency;
    item.estimated = summary.estimated_cost;
    item.source = SpendSource::Record;
    return item;
}

SpendItem spend_of_job(const job::JobStatus& status, const Pricing& pricing, std::time_t now) {
    SpendItem item;
    item.name = status.name;
    item.namespace_ = status.namespace_;
    item.kind = status.kind;
    item.labels = status.labels;
    item.queue = status.queue ? status.queue->local_queue : label_or(item, k_queue_label, "");
    item.replicas = status.replicas_wanted;
    item.run_s = job::job_duration(status, now);
    item.currency = pricing.catalog.currency;
    item.source = job::runs_here(status) ? SpendSource::Local : SpendSource::Live;
    auto cost = job_cost(status, pricing, now);
    if (cost) {
        item.amount = cost->amount;
        item.run_s = cost->elapsed_s;
        item.replicas = cost->replicas > 0 ? cost->replicas : item.replicas;
    } else {
        item.unpriced = cost.error();
    }
    auto estimate = status.annotations.find(history::k_estimated_cost_annotation);
    if (estimate != status.annotations.end()) {
        item.estimated = estimate::parse_money(estimate->second);
    }
    return item;
}

std::vector<SpendItem> live_spend(const std::vector<job::JobStatus>& jobs,
                                  const std::set<std::string>& recorded_uids, double since_s,
                                  const Pricing& pricing, std::time_t now) {
    std::vector<SpendItem> items;
    for (const job::JobStatus& job : jobs) {
        if (!job.uid.empty() && recorded_uids.count(job.uid) > 0) {
            continue;  // its record counts it
        }
        auto finished = util::parse_timestamp(job.finished);
        if (finished && since_s > 0 && std::difftime(now, *finished) > since_s) {
            continue;
        }
        items.push_back(spend_of_job(job, pricing, now));
    }
    return items;
}

Spend group_spend(const std::vector<SpendItem>& items, const SpendGrouping& grouping) {
    Spend spend;
    spend.grouping = grouping;
    spend.total.key = "TOTAL";
    std::map<std::string, SpendRow> rows;
    for (const SpendItem& item : items) {
        const std::string key = key_of(item, grouping);
        SpendRow& row = rows[key];
        row.key = key;
        add_item(row, item);
        add_item(spend.total, item);
        if (spend.currency.empty()) {
            spend.currency = item.currency;
        }
    }
    for (auto& [key, row] : rows) {
        spend.rows.push_back(std::move(row));
    }
    // Most costly first; a tie (rows not priced) by key, so the order never depends on reads.
    std::stable_sort(spend.rows.begin(), spend.rows.end(),
                     [](const SpendRow& a, const SpendRow& b) { return a.amount > b.amount; });
    return spend;
}

std::string run_text(const SpendRow& row) {
    if (row.jobs == row.unknown_runs) {
        return "unknown";
    }
    const std::string known = util::format_duration(row.run_s);
    return row.unknown_runs > 0 ? fmt::format("{} + {} unknown", known, row.unknown_runs) : known;
}

std::string cost_text(const SpendRow& row) {
    const auto not_priced = static_cast<long long>(row.unpriced.size());
    if (row.priced == 0) {
        if (row.jobs == 1 && not_priced == 1) {
            const std::string& why = row.unpriced.front();
            return fmt::format("- ({})", why.substr(why.find(": ") + 2));
        }
        return fmt::format("- ({} not priced)", not_priced);
    }
    const std::string amount = estimate::format_money(row.amount);
    return not_priced > 0 ? fmt::format("{} + {} not priced", amount, not_priced) : amount;
}

std::string total_cost_text(const SpendRow& total) {
    const std::string amount = total.priced > 0 ? estimate::format_money(total.amount) : "-";
    if (total.unpriced.empty()) {
        return amount;
    }
    return fmt::format("{}, {} not priced", amount,
                       util::counted(static_cast<long long>(total.unpriced.size()), "job"));
}

std::string estimate_text(const SpendRow& row) {
    if (row.estimates == 0) {
        return "-";
    }
    const std::string amount = estimate::format_money(row.estimated);
    return row.estimates < row.jobs
               ? fmt::format("{} ({} of {})", amount, row.estimates, util::counted(row.jobs, "job"))
               : amount;
}

nlohmann::ordered_json spend_to_json(const Spend& spend) {
    nlohmann::ordered_json doc;
    doc["by"] = grouping_name(spend.grouping);
    doc["currency"] = spend.currency;
    doc["rows"] = nlohmann::ordered_json::array();
    for (const SpendRow& row : spend.rows) {
        doc["rows"].push_back(row_to_json(row));
    }
    doc["total"] = row_to_json(spend.total);
    doc["unpriced"] = nlohmann::ordered_json::array();
    for (const std::string& why : spend.total.unpriced) {
        const size_t colon = why.find(": ");
        doc["unpriced"].push_back({{"job", why.substr(0, colon)}, {"why", why.substr(colon + 2)}});
    }
    return doc;
}

std::string csv_field(const std::string& text) {
    if (text.find_first_of(",\"\r\n") == std::string::npos) {
        return text;
    }
    std::string quoted = "\"";
    for (char c : text) {
        quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
    }
    return quoted + "\"";
}

std::string spend_csv(const Spend& spend) {
    std::string text = csv_field(grouping_name(spend.grouping)) +
                       ",jobs,run_s,unknown_run_time,replica_hours,cost,not_priced,"
                       "estimated_cost,currency\n";
    for (const SpendRow& row : spend.rows) {
        text += csv_line(row, spend.currency);
    }
    return text + csv_line(spend.total, spend.currency);
}

}  // namespace kftrain::cost
