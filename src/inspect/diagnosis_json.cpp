#include "inspect/diagnosis_json.h"

#include "manifest/k8s/quantity.h"
#include "util/json_optional.h"

namespace kftrain::inspect {
namespace {

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

}  // namespace kftrain::inspect
