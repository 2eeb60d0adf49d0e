#include "cli/view/diagnosis_view.h"

#include <fmt/format.h>

#include "cli/view/field_text.h"
#include "util/text.h"
#include "util/text_table.h"

namespace kftrain::cli::view {
namespace {

using diagnose::Cause;

std::string end_cause(const diagnose::ReplicaEnd& end, const diagnose::Diagnosis& d) {
    if (end.cause == Cause::None) {
        return "";
    }
    std::string text = diagnose::cause_id(end.cause);
    if (end.first) {
        return text + " (first)";
    }
    if (end.cause == Cause::PeerGone && !d.replica.empty()) {
        return text + " (a consequence)";
    }
    return text;
}

std::string exit_cell(const diagnose::ReplicaEnd& end) {
    if (end.signal != 0) {
        return fmt::format("{} ({})", *end.exit_code, diagnose::signal_name(end.signal));
    }
    return end.exit_code ? std::to_string(*end.exit_code) : "";
}

}  // namespace

void print_diagnosis(std::ostream& out, const std::string& job_ref, const diagnose::Diagnosis& d) {
    view::print_field(out, "Job", fmt::format("{} ({})", job_ref, d.verdict));
    view::print_field(out, "Why", d.why);
    if (d.cause != Cause::None) {
        view::print_field(
            out, "Cause",
            fmt::format("{}: {}", diagnose::cause_id(d.cause), diagnose::cause_title(d.cause)));
    }
    view::print_field(out, "Hint", d.hint);
    if (d.straggler) {
        view::print_field(out, "Straggler", diagnose::describe_straggler(*d.straggler));
    }
    if (!d.timeline.empty()) {
        out << "\n";
        util::TextTable table({"REPLICA", "STATE", "ENDED", "EXIT", "RESTARTS", "CAUSE", "DETAIL"});
        for (const auto& end : d.timeline) {
            table.add_row({end.name, end.state, end.ended, exit_cell(end),
                           std::to_string(end.restarts), end_cause(end, d), end.detail});
        }
        table.print(out);
    }
    for (size_t i = 0; i < d.notes.size(); ++i) {
        view::print_field(out, i == 0 ? "Not read" : "", d.notes[i]);
    }
    if (!d.evidence.empty()) {
        const std::string title = d.quota             ? std::string("Evidence (events):")
                                  : d.replica.empty() ? std::string("Last lines:")
                                                      : fmt::format("Evidence ({}):", d.replica);
        out << "\n" << title << "\n";
        for (const auto& line : d.evidence) {
            std::string text = line.time.empty() ? line.text : line.time + " " + line.text;
            out << "  " << util::escape_controls(text) << "\n";
        }
    }
}

}  // namespace kftrain::cli::view
