#pragma once

// What `kftrain doctor` found (docs/doctor.md): checks, each with its state, what was found and
// the one command or page that fixes it, and a verdict. Pure: the backends gather the facts.

#include <string>
#include <vector>

namespace kftrain::doctor {

// How a check came out.
enum class State {
    Ok,       // the piece is there and works
    Missing,  // the piece is not there (a CRD, a runtime, a claim)
    Failed,   // it is there but does not work, or cannot be used (a permission, a fit)
    Skipped,  // not checked; found says why
    Warning,  // works, with a caveat (a version skew at the edge, no default StorageClass)
};

// Return the state's word as doctor prints it: ok, missing, failed, skipped, warning.
const char* state_name(State state);

// One check.
struct Check {
    std::string group;  // client, cluster, permissions, job, local
    std::string name;   // "kubectl", "PyTorchJob", "create pytorchjobs"
    State state = State::Ok;
    std::string found;  // what was found, or why it was skipped
    std::string fix;    // what fixes a check that is not ok; "" where none is needed
    // Whether a check that is missing or failed fails doctor (exit 1). An optional piece (Katib
    // for a job that tunes nothing, the Prometheus Operator) only reports.
    bool needed = true;
};

// Return a check.
Check check(const std::string& group, const std::string& name, State state,
            const std::string& found, const std::string& fix = "", bool needed = true);

// What doctor found, in the order it prints.
struct Report {
    std::vector<Check> checks;
    std::string verdict;  // one sentence: what submit would do, or what stops it
};

// Return whether a check stops doctor: needed, and missing or failed.
bool fails(const Check& check);

// Return whether every needed check passed: exit 0, else 1.
bool passed(const Report& report);

// Return the verdict for a report's checks: what submit would do when every needed check
// passed, else what stops it, naming the first failure; job says whether a job file was
// checked, here whether jobs run on this machine.
std::string verdict(const std::vector<Check>& checks, bool job, bool here);

}  // namespace kftrain::doctor
