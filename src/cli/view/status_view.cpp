#include "cli/view/status_view.h"

#include <fmt/format.h>

#include "cli/view/field_text.h"
#include "cli/view/progress.h"
#include "cli/view/queue_view.h"
#include "cli/view/replica_summary.h"
#include "diagnose/stragglers.h"
#include "estimate/units.h"
#include "inspect/status_json.h"
#include "util/json_text.h"
#include "util/text.h"
#include "util/text_table.h"
#include "util/time_text.h"

namespace kftrain::cli::view {
namespace {

std::string or_dash(const std::string& text) {
    return text.empty() ? "-" : text;
}

// "Master: 1 active; Worker: 6 active, 1 failed"
std::string format_counts(const job::JobStatus& status) {
    std::vector<std::string> parts;
    for (const auto& [type, c] : status.counts) {
        std::vector<std::string> numbers;
        if (c.active > 0 || (c.succeeded == 0 && c.failed == 0)) {
            numbers.push_back(fmt::format("{} active", c.active));
        }
        if (c.succeeded > 0) {
            numbers.push_back(fmt::format("{} succeeded", c.succeeded));
        }
        if (c.failed > 0) {
            numbers.push_back(fmt::format("{} failed", c.failed));
        }
        parts.push_back(fmt::format("{}: {}", type, fmt::join(numbers, ", ")));
    }
    return fmt::format("{}", fmt::join(parts, "; "));
}

void print_replicas(std::ostream& out, const job::JobStatus& status, bool wide) {
    std::vector<std::string> headers = {"REPLICA", "STATE", "RESTARTS", "REASON"};
    if (wide) {
        headers.insert(headers.end(),
                       {"EXIT", job::runs_here(status) ? "PID" : "POD", "NODE", "MESSAGE"});
    }
    util::TextTable table(headers);
    for (const auto& r : status.replicas) {
        std::vector<std::string> row = {r.name, or_dash(r.state), std::to_string(r.restarts),
                                        r.reason};
        if (wide) {
            std::string where =
                job::runs_here(status) ? (r.pid ? std::to_string(r.pid) : "") : r.pod;
            row.insert(row.end(),
                       {r.exit_code ? std::to_string(*r.exit_code) : "", where, r.node, r.message});
        }
        table.add_row(std::move(row));
    }
    table.print(out);
}

// The last progress reported; once the job has run, that its program reported none.
std::string progress_field(const job::JobStatus& status) {
    if (status.progress) {
        const std::string& source = status.progress->source;
        return format_progress(*status.progress) + (source.empty() ? "" : " (from " + source + ")");
    }
    if (!status.progress_unread.empty()) {  // not the same as a program that reported none
        return "not read: " + status.progress_unread;
    }
    const bool has_run = !status.started.empty() || status.phase == job::JobPhase::Running ||
                         job::is_finished(status.phase);
    return has_run ? "none reported: the program printed no progress kftrain reads (progress "
                     "lines, tqdm bars, Keras or Hugging Face Trainer output, \"step 3/10\" "
                     "lines) and posted no trainerStatus (docs/progress.md)"
                   : "";
}

void print_status_table(std::ostream& out, const job::JobStatus& status, bool wide, std::time_t now,
                        const cost::Pricing* pricing, ReplicaRows rows) {
    print_field(out, "Name", status.name);
    print_field(out, "Kind", status.kind);
    print_field(out, "Namespace", status.namespace_);
    print_field(out, "Backend", status.backend);
    print_field(out, "State", format_state(status));
    print_field(out, "Why", status.why);
    print_field(out, "Queue", status.queue ? format_queue_field(*status.queue, now) : "");
    print_field(out, "Created", format_time_field(status.created, now));
    print_field(out, "Started", format_time_field(status.started, now));
    print_field(out, "Finished", format_time_field(status.finished, now));
    if (status.phase == job::JobPhase::Suspended) {
        print_field(out, "Suspended", format_time_field(status.suspended_since, now));
    }
    auto duration = job::job_duration(status, now);
    print_field(out, "Duration", duration ? util::format_duration(*duration) : "");
    print_field(out, "Replicas", format_counts(status));
    if (pricing != nullptr) {
        print_field(out, "Cost", format_cost(status, cost::job_cost(status, *pricing, now)));
    }
    print_field(out, "Progress", progress_field(status));
    print_field(out, "Checkpoint", status.checkpoint ? format_checkpoint(*status.checkpoint) : "");
    if (status.progress && !job::is_finished(status.phase)) {
        if (auto straggler = diagnose::find_straggler(status.progress->rank_step_s)) {
            print_field(out, "Straggler", diagnose::describe_straggler(*straggler));
        }
    }
    for (size_t i = 0; i < status.diagnosis.size(); ++i) {
        print_field(out, i == 0 ? "Diagnosis" : "", status.diagnosis[i]);
    }
    if (status.replicas.size() > job::k_many_replicas && rows == ReplicaRows::SummaryOfMany) {
        out << "\n";
        print_replica_summary(out, status, now);
    } else if (!status.replicas.empty()) {
        out << "\n";
        print_replicas(out, status, wide);
    }
}

// "3/4": replicas active of those wanted, or just the active count.
std::string format_replica_ratio(const job::JobStatus& status) {
    int active = 0;
    for (const auto& [type, c] : status.counts) {
        active += c.active;
    }
    if (status.replicas_wanted > 0) {
        return fmt::format("{}/{}", active, status.replicas_wanted);
    }
    return std::to_string(active);
}

// The STATE column: the phase, or Queued while the job waits in its queue.
std::string list_state(const job::JobStatus& status) {
    if (shows_queue(status) && status.queue->state == job::QueueState::Pending) {
        return "Queued";
    }
    return job::phase_name(status.phase);
}

std::string format_age(const job::JobStatus& status, std::time_t now) {
    auto created = util::parse_timestamp(status.created.empty() ? status.started : status.created);
    return created ? util::format_duration(std::difftime(now, *created)) : "-";
}

}  // namespace

std::string format_state(const job::JobStatus& status) {
    if (shows_queue(status)) {
        return job::format_queue_state(*status.queue);
    }
    std::string line = job::phase_name(status.phase);
    if (!status.reason.empty()) {
        line += fmt::format(" ({})", status.reason);
    }
    if (!status.message.empty()) {
        line += ": " + status.message;
    }
    return line;
}

void print_status(std::ostream& out, const job::JobStatus& status, OutputFormat format,
                  std::time_t now, const cost::Pricing* pricing, ReplicaRows rows) {
    switch (format) {
        case OutputFormat::Table:
        case OutputFormat::Wide:
        case OutputFormat::Csv:  // neither verb offers it
            print_status_table(out, status, format == OutputFormat::Wide, now, pricing, rows);
            return;
        case OutputFormat::Json:
            out << util::json_text(inspect::status_to_json(status, now, pricing), 2) << "\n";
            return;
        case OutputFormat::Yaml:
            print_json_as_yaml(out, inspect::status_to_json(status, now, pricing));
            return;
    }
}

std::string format_cost(const job::JobStatus& status, const util::Result<cost::JobCost>& cost) {
    if (!cost) {
        return fmt::format("- ({})", cost.error());
    }
    const char* when = job::runs_here(status) ? " if run on the cluster"
                       : cost->final          ? ""
                                              : " so far";
    return fmt::format("{}{}: {}, {}", estimate::format_money(cost->amount), when, cost->basis,
                       cost->prices);
}

void print_list(std::ostream& out, const std::vector<job::JobStatus>& jobs, OutputFormat format,
                bool all_namespaces, std::time_t now, const cost::Pricing* pricing) {
    if (format == OutputFormat::Json || format == OutputFormat::Yaml) {
        nlohmann::json items = nlohmann::json::array();
        for (const auto& job : jobs) {
            items.push_back(inspect::status_to_json(job, now, pricing));
        }
        print_json_items(out, items, format);
        return;
    }
    bool wide = format == OutputFormat::Wide;
    std::vector<std::string> headers = {"NAME", "KIND", "STATE", "REPLICAS", "AGE"};
    if (all_namespaces) {
        headers.insert(headers.begin(), "NAMESPACE");
    }
    if (wide) {
        headers.insert(headers.end(), {"DURATION", "BACKEND", "REASON", "PROGRESS"});
        if (pricing != nullptr) {
            headers.insert(headers.end() - 1, "COST");
        }
    }
    util::TextTable table(headers);
    for (const auto& job : jobs) {
        std::vector<std::string> row = {job.name, job.kind, list_state(job),
                                        format_replica_ratio(job), format_age(job, now)};
        if (all_namespaces) {
            row.insert(row.begin(), job.namespace_);
        }
        if (wide) {
            auto duration = job::job_duration(job, now);
            row.insert(row.end(), {duration ? util::format_duration(*duration) : "-", job.backend,
                                   job.reason, job.progress ? format_progress(*job.progress) : ""});
            if (pricing != nullptr) {
                auto cost = cost::job_cost(job, *pricing, now);
                row.insert(row.end() - 1, cost ? estimate::format_money(cost->amount) : "-");
            }
        }
        table.add_row(std::move(row));
    }
    table.print(out);
}

void print_recorded_note(std::ostream& err, const job::JobStatus& status, bool forced) {
    if (status.recorded.empty()) {
        return;
    }
    err << "kftrain: note: "
        << util::escape_controls(
               forced ? fmt::format("job {}: this is its record of {} (kftrain history)",
                                    status.name, status.recorded)
                      : fmt::format("job {} no longer exists on the cluster; this is its record "
                                    "of {} (kftrain history)",
                                    status.name, status.recorded))
        << "\n";
}

}  // namespace kftrain::cli::view
