#include "cli/verbs/history/history_flags.h"

#include <fmt/format.h>

#include "backend/select.h"
#include "util/text.h"
#include "util/time_text.h"

namespace kftrain::cli {

util::Result<std::set<job::JobPhase>> parse_states(const std::string& text) {
    if (text.empty()) {
        return std::set<job::JobPhase>{job::JobPhase::Succeeded, job::JobPhase::Failed};
    }
    std::set<job::JobPhase> states;
    for (const std::string& word : util::split(text, ',')) {
        const std::string lower = util::to_lower(util::trim(word));
        if (lower == "succeeded") {
            states.insert(job::JobPhase::Succeeded);
        } else if (lower == "failed") {
            states.insert(job::JobPhase::Failed);
        } else {
            return util::error(fmt::format(
                "--state: must be Succeeded or Failed, or both as Succeeded,Failed (got {})",
                util::excerpt(text, 80)));
        }
    }
    return states;
}

util::Result<double> parse_age_flag(const std::string& flag, const std::string& text) {
    if (text.empty()) {
        return 0.0;
    }
    return util::parse_duration_flag(flag, text, util::k_age_duration);
}

std::string age_text(const std::string& finished, std::time_t now) {
    auto at = util::parse_timestamp(finished);
    return at ? util::format_duration(std::difftime(now, *at)) : "-";
}

history::Filter records_filter(const job::BackendOptions& global, bool all_contexts,
                               bool all_namespaces) {
    history::Filter filter;
    if (all_contexts) {
        filter.namespace_ = global.namespace_;  // no kubectl to ask: every context is read
        return filter;
    }
    const backend::HistoryScope scope = backend::history_scope(global, !all_namespaces);
    filter.context = scope.context;
    filter.namespace_ = all_namespaces ? "" : scope.namespace_;
    return filter;
}

}  // namespace kftrain::cli
