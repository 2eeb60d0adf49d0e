#include "search/search_cost.h"

#include <fmt/format.h>

#include <algorithm>

#include "estimate/units.h"

namespace kftrain::search {
namespace {

// The job whose requests say what one trial asks for: the template's, else the first
// trial's that says.
const job::JobStatus* basis_job(const std::vector<job::JobStatus>& trial_jobs,
                                const std::optional<job::JobStatus>& template_job) {
    if (template_job && !template_job->requests.empty()) {
        return &*template_job;
    }
    auto it = std::find_if(trial_jobs.begin(), trial_jobs.end(),
                           [](const job::JobStatus& job) { return !job.requests.empty(); });
    return it == trial_jobs.end() ? nullptr : &*it;
}

}  // namespace

void price_search(kftrain::tune::SearchStatus& status,
                  const std::vector<job::JobStatus>& trial_jobs,
                  const std::optional<job::JobStatus>& template_job, const cost::Pricing& pricing,
                  std::time_t now) {
    const job::JobStatus* basis = basis_job(trial_jobs, template_job);
    if (basis == nullptr) {
        return;
    }
    job::JobStatus one_trial = *basis;  // priced for no time: its rate alone
    one_trial.started = one_trial.finished = "1970-01-01T00:00:00Z";
    one_trial.phase = job::JobPhase::Succeeded;
    auto rate = cost::job_cost(one_trial, pricing, now);
    if (!rate) {
        return;
    }
    double total = 0;
    const size_t count = std::min(status.trials.size(), trial_jobs.size());
    for (size_t i = 0; i < count; ++i) {
        // A pending trial has not started: its time since creation is a wait, not run time.
        if (status.trials[i].state == kftrain::tune::TrialState::Pending) {
            status.trials[i].cost = 0.0;
            continue;
        }
        auto priced = cost::job_cost(trial_jobs[i], pricing, now);
        if (priced) {
            status.trials[i].cost = priced->amount;
            total += priced->amount;
        }
    }
    status.cost = total;
    status.currency = rate->currency;
    status.cost_basis =
        fmt::format("{}/h per trial: {}, {}", estimate::format_money(rate->per_hour), rate->basis,
                    rate->prices);
}

}  // namespace kftrain::search
