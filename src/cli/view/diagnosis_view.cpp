#include "cli/view/diagnosis_view.h"

#include <fmt/format.h>

#include "cli/view/field_text.h"
#include "manifest/k8s/quantity.h"
#include "util/json_optional.h"
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

// The quota that refused pods, or null.
nlohmann::ordered_json quota_json(const std::optional<diagnose::QuotaFinding>& quota) {
    if (!quota) {
        return nullptr;
    }
    nlohmann::ordered_json resources = nlohmann::ordered_json::array();
    for (const auto& a : quota->refusal.amounts) {
        resources.push_back({{"resource", a.resource},
                             {"requested", a.requested},
                             {"used", a.used},
                             {"limited", a.limited}});
    }
    const int missing = quota->wanted > 0 ? quota->wanted - quota->created : 0;
    return {{"name", quota->refusal.quota},
            {"pod", quota->refusal.pod},
            {"resources", resources},
            {"mustSpecify", quota->refusal.must_specify},
            {"podsWanted", quota->wanted},
            {"podsCreated", quota->created},
            {"podsRunning", quota->running},
            {"podsNotCreated", missing},
            {"event",
             {{"object", quota->object},
              {"reason", quota->reason},
              {"message", quota->message},
              {"time", quota->time}}}};
}

// The first failure out of host memory: its limit, the peak measured, what to ask; or null.
nlohmann::ordered_json memory_json(const std::optional<diagnose::MemoryFix>& memory) {
    if (!memory) {
        return nullptr;
    }
    auto text = [](const std::optional<double>& bytes) {
        return bytes ? nlohmann::ordered_json(manifest::quantity_text("memory", *bytes))
                     : nlohmann::ordered_json(nullptr);
    };
    const auto& measured = memory->measured;
    auto of_measure = [&measured](auto field) {
        return measured ? nlohmann::ordered_json(field(*measured))
                        : nlohmann::ordered_json(nullptr);
    };
    using Measured = diagnose::MeasuredMemory;
    return {{"replica", memory->replica},
            {"limitBytes", util::optional_json(memory->limit_bytes)},
            {"limit", text(memory->limit_bytes)},
            {"limitEnforced", memory->limit_enforced},
            {"measuredPeakBytes", of_measure([](const Measured& m) { return m.peak_bytes; })},
            {"measuredPeak", of_measure([](const Measured& m) {
                 return manifest::quantity_text("memory", m.peak_bytes);
             })},
            {"measuredAtReplicas", of_measure([](const Measured& m) { return m.peak_replicas; })},
            {"measuredAt", of_measure([](const Measured& m) { return m.measured_at; })},
            {"profile", of_measure([](const Measured& m) { return m.profile; })},
            {"recommendedBytes", of_measure([](const Measured& m) { return m.recommended_bytes; })},
            {"recommendedMemory", of_measure([](const Measured& m) {
                 return manifest::quantity_text("memory", m.recommended_bytes);
             })},
            {"fix", memory->text}};
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

nlohmann::ordered_json diagnosis_to_json(const std::string& job, const std::string& kind,
                                         const diagnose::Diagnosis& d) {
    nlohmann::ordered_json timeline = nlohmann::ordered_json::array();
    for (const auto& end : d.timeline) {
        timeline.push_back(
            {{"replica", end.name},
             {"state", end.state},
             {"ended", end.ended},
             {"exitCode", util::optional_json(end.exit_code)},
             {"signal", end.signal != 0 ? nlohmann::ordered_json(diagnose::signal_name(end.signal))
                                        : nlohmann::ordered_json(nullptr)},
             {"reason", end.reason},
             {"restarts", end.restarts},
             {"cause", diagnose::cause_id(end.cause)},
             {"detail", end.detail},
             {"first", end.first},
             {"lastLine", end.last_line}});
    }
    nlohmann::ordered_json evidence = nlohmann::ordered_json::array();
    for (const auto& line : d.evidence) {
        evidence.push_back({{"time", line.time}, {"text", line.text}});
    }
    return {
        {"name", job},
        {"kind", kind},
        {"verdict", d.verdict},
        {"cause", diagnose::cause_id(d.cause)},
        {"title", diagnose::cause_title(d.cause)},
        {"replica", d.replica},
        {"why", d.why},
        {"hint", d.hint},
        {"consequences", d.consequences},
        {"crashLoop", d.crash_loop
                          ? nlohmann::ordered_json{{"replica", d.crash_loop->replica},
                                                   {"attempts", d.crash_loop->attempts},
                                                   {"lastTwoSame", d.crash_loop->last_two_same}}
                          : nlohmann::ordered_json(nullptr)},
        {"quota", quota_json(d.quota)},
        {"memory", memory_json(d.memory)},
        {"timeline", timeline},
        {"evidence", evidence},
        {"notes", d.notes},
        {"straggler", d.straggler ? nlohmann::ordered_json{{"rank", d.straggler->rank},
                                                           {"stepSeconds", d.straggler->step_s},
                                                           {"medianSeconds", d.straggler->median_s},
                                                           {"ratio", d.straggler->ratio}}
                                  : nlohmann::ordered_json(nullptr)}};
}

}  // namespace kftrain::cli::view
