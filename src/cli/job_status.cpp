#include "cli/job_status.h"

namespace kftrain::cli {

const char* phase_name(JobPhase phase) {
    switch (phase) {
        case JobPhase::Created:
            return "Created";
        case JobPhase::Running:
            return "Running";
        case JobPhase::Restarting:
            return "Restarting";
        case JobPhase::Succeeded:
            return "Succeeded";
        case JobPhase::Failed:
            return "Failed";
        case JobPhase::Suspended:
            return "Suspended";
        case JobPhase::Unknown:
            break;
    }
    return "Unknown";
}

JobPhase parse_phase(const std::string& name) {
    for (JobPhase phase : {JobPhase::Created, JobPhase::Running, JobPhase::Restarting,
                           JobPhase::Succeeded, JobPhase::Failed, JobPhase::Suspended}) {
        if (name == phase_name(phase)) {
            return phase;
        }
    }
    return JobPhase::Unknown;
}

}  // namespace kftrain::cli
