#include "doctor/report.h"

#include <fmt/format.h>

#include <algorithm>

namespace kftrain::doctor {

const char* state_name(State state) {
    switch (state) {
        case State::Ok:
            return "ok";
        case State::Missing:
            return "missing";
        case State::Failed:
            return "failed";
        case State::Skipped:
            return "skipped";
        case State::Warning:
            return "warning";
    }
    return "?";
}

Check check(const std::string& group, const std::string& name, State state,
            const std::string& found, const std::string& fix, bool needed) {
    return Check{group, name, state, found, fix, needed};
}

bool fails(const Check& check) {
    return check.needed && (check.state == State::Missing || check.state == State::Failed);
}

bool passed(const Report& report) {
    return std::none_of(report.checks.begin(), report.checks.end(), fails);
}

std::string verdict(const std::vector<Check>& checks, bool job, bool here) {
    const auto first = std::find_if(checks.begin(), checks.end(), fails);
    const auto count = std::count_if(checks.begin(), checks.end(), fails);
    if (first == checks.end()) {
        if (!job) {
            return here ? "ready: jobs can run on this machine"
                        : "ready: jobs can be submitted here";
        }
        return here ? "ready: submit --local would start its replicas on this machine"
                    : "ready: submit would be accepted, and each replica fits on a node";
    }
    const std::string more = count > 1 ? fmt::format(" (and {} more)", count - 1) : "";
    return fmt::format("{}: {} {} {}{}", job ? "submit would not run" : "not ready", first->group,
                       first->name, state_name(first->state), more);
}

}  // namespace kftrain::doctor
