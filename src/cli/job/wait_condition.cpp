#include "cli/job/wait_condition.h"

namespace kftrain::cli::job {

std::optional<WaitFor> parse_wait_for(const std::string& text) {
    if (text == "created") {
        return WaitFor::Created;
    }
    if (text == "running") {
        return WaitFor::Running;
    }
    if (text == "succeeded") {
        return WaitFor::Succeeded;
    }
    if (text == "suspended") {
        return WaitFor::Suspended;
    }
    return std::nullopt;
}

WaitVerdict judge_wait(WaitFor condition, JobPhase phase) {
    switch (condition) {
        case WaitFor::Created:
            return WaitVerdict::Met;  // it exists
        case WaitFor::Running:
            if (phase == JobPhase::Running || phase == JobPhase::Succeeded) {
                return WaitVerdict::Met;  // a succeeded job has run
            }
            break;
        case WaitFor::Succeeded:
            if (phase == JobPhase::Succeeded) {
                return WaitVerdict::Met;
            }
            break;
        case WaitFor::Suspended:
            if (phase == JobPhase::Suspended) {
                return WaitVerdict::Met;
            }
            if (phase == JobPhase::Succeeded) {
                return WaitVerdict::Unreachable;
            }
            break;
    }
    return phase == JobPhase::Failed ? WaitVerdict::Failed : WaitVerdict::Pending;
}

}  // namespace kftrain::cli::job
