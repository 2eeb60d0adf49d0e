#include "job/wait_condition.h"

namespace kftrain::job {

namespace {

struct WaitForName {
    const char* name;
    WaitFor condition;
};

constexpr WaitForName k_wait_for[] = {{"succeeded", WaitFor::Succeeded},
                                      {"running", WaitFor::Running},
                                      {"created", WaitFor::Created},
                                      {"suspended", WaitFor::Suspended},
                                      {"admitted", WaitFor::Admitted}};

}  // namespace

std::vector<std::string> wait_for_names() {
    std::vector<std::string> names;
    for (const WaitForName& wait_for : k_wait_for) {
        names.emplace_back(wait_for.name);
    }
    return names;
}

std::optional<WaitFor> parse_wait_for(const std::string& text) {
    for (const WaitForName& wait_for : k_wait_for) {
        if (text == wait_for.name) {
            return wait_for.condition;
        }
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
        case WaitFor::Admitted:
            if (phase == JobPhase::Running || phase == JobPhase::Succeeded) {
                return WaitVerdict::Met;  // running means admitted
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

WaitVerdict judge_wait(WaitFor condition, const JobStatus& status) {
    if (condition != WaitFor::Admitted || !status.queue) {
        return condition == WaitFor::Admitted && status.phase != JobPhase::Failed
                   ? WaitVerdict::Met  // in no queue: nothing holds it back
                   : judge_wait(condition, status.phase);
    }
    const QueueState state = status.queue->state;
    if (state == QueueState::Admitted || state == QueueState::Finished) {
        return status.phase == JobPhase::Failed ? WaitVerdict::Failed : WaitVerdict::Met;
    }
    return judge_wait(condition, status.phase);
}

}  // namespace kftrain::job
