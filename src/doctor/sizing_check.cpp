#include "doctor/sizing_check.h"

#include <fmt/format.h>

#include <algorithm>

#include "manifest/k8s/quantity.h"

namespace kftrain::doctor {

Check sizing_check(const std::string& group, const estimate::Sizing& sizing,
                   const std::vector<estimate::SizingFinding>& findings,
                   const std::string& measured) {
    const std::string recommended = manifest::quantity_text("memory", sizing.memory_bytes);
    if (findings.empty()) {
        return check(group, k_sizing_check, State::Ok,
                     fmt::format("its resources hold what it used: {}; {}",
                                 estimate::sizing_text(sizing), measured));
    }
    std::vector<std::string> messages;
    for (const estimate::SizingFinding& finding : findings) {
        messages.push_back(finding.message);
    }
    const std::string found = fmt::format("{}; {}", fmt::join(messages, "; "), measured);
    const bool oom = std::any_of(findings.begin(), findings.end(),
                                 [](const estimate::SizingFinding& f) { return f.oom; });
    if (oom) {
        return check(group, k_sizing_check, State::Failed, found,
                     fmt::format("set resources.memory to {} (or measure again if the program "
                                 "changed: kftrain estimate --measure)",
                                 recommended));
    }
    return check(group, k_sizing_check, State::Warning, found,
                 "ask for what it used: " + estimate::sizing_text(sizing), false);
}

Check unmeasured_check(const std::string& group) {
    return check(group, k_sizing_check, State::Skipped,
                 "not measured: kftrain estimate --measure -f JOB_FILE saves its peak memory and "
                 "cores, and doctor then checks its resources against them",
                 "", false);
}

}  // namespace kftrain::doctor
