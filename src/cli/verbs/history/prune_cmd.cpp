#include "cli/verbs/history/prune_cmd.h"

#include <fmt/format.h>

#include <map>
#include <memory>

#include "backend/select.h"
#include "cli/flags.h"
#include "cli/verb.h"
#include "cli/verbs/history/history_flags.h"
#include "util/text.h"
#include "util/time_text.h"

namespace kftrain::cli {
namespace {

constexpr const char* k_prune_examples =
    "Examples:\n"
    "  # What would go: the finished jobs of this namespace that ended over a week ago\n"
    "  kftrain prune --older-than 7d --dry-run\n"
    "  # Delete the succeeded ones of every namespace older than a day (their records stay)\n"
    "  kftrain prune --older-than 1d --state Succeeded -A\n"
    "  # The finished jobs of this machine\n"
    "  kftrain prune --older-than 3d --local";

// The backends that delete, one per namespace: a cluster backend works in one namespace.
class Deleters {
  public:
    Deleters(Context& ctx, std::unique_ptr<job::Backend> first, std::string first_ns) : m_ctx(ctx) {
        m_by_namespace.emplace(std::move(first_ns), std::move(first));
    }
    job::Backend& in(const std::string& ns) {
        auto found = m_by_namespace.find(ns);
        if (found == m_by_namespace.end()) {
            found = m_by_namespace.emplace(ns, backend::make_backend(m_ctx, "", ns)).first;
        }
        return *found->second;
    }

  private:
    Context& m_ctx;
    std::map<std::string, std::unique_ptr<job::Backend>> m_by_namespace;
};

}  // namespace

std::vector<job::JobStatus> prunable_jobs(const std::vector<job::JobStatus>& jobs,
                                          const std::set<job::JobPhase>& states,
                                          double older_than_s, std::time_t now, int& skipped) {
    std::vector<job::JobStatus> prunable;
    skipped = 0;
    for (const job::JobStatus& job : jobs) {
        if (!job::is_finished(job.phase) || states.count(job.phase) == 0) {
            continue;
        }
        auto finished = util::parse_timestamp(job.finished);
        if (!finished) {
            ++skipped;  // how old it is is unknown: never deleted on a guess
            continue;
        }
        if (std::difftime(now, *finished) >= older_than_s) {
            prunable.push_back(job);
        }
    }
    return prunable;
}

void setup_prune(CLI::App& app, Context& ctx) {
    auto options = std::make_shared<PruneOptions>();
    auto* sub = app.add_subcommand(
        "prune", "Delete finished jobs older than a duration; their records stay in history");
    sub->footer(k_prune_examples);
    sub->add_option("--older-than", options->older_than,
                    duration_help("Delete jobs that finished longer ago than this (required); days "
                                  "too: 7d"))
        ->type_name("DURATION");
    sub->add_option("--state", options->state,
                    "Only jobs that ended so: Succeeded, Failed, or Succeeded,Failed (default)")
        ->type_name("STATES");
    sub->add_flag("-A,--all-namespaces", options->all_namespaces, "Jobs of every namespace");
    sub->add_flag("--dry-run", options->dry_run, "Name the jobs it would delete, delete none");
    run_when_parsed(*sub, options, ctx);
}

util::Status PruneOptions::complete(const Context& /*ctx*/) {
    return util::ok_status();
}

util::Status PruneOptions::validate() {
    if (older_than.empty()) {
        return util::error(
            "--older-than: required: how long ago a job finished for prune to "
            "delete it (a duration such as 7d, 12h or 90m)");
    }
    auto parsed = parse_age_flag("--older-than", older_than);
    if (!parsed) {
        return parsed.error_value();
    }
    older_than_s = *parsed;
    auto parsed_states = parse_states(state);
    if (!parsed_states) {
        return parsed_states.error_value();
    }
    states = *parsed_states;
    return util::ok_status();
}

int PruneOptions::run(Context& ctx) const {
    const std::string& ns = ctx.global.namespace_;
    auto first = backend::make_backend(ctx, "", ns);
    const bool here = first->capabilities().on_this_machine;
    auto jobs = first->list(all_namespaces);
    if (!jobs) {
        return report_error(ctx, jobs.error(), jobs.error_code(k_exit_cluster));
    }
    int skipped = 0;
    const auto prunable = prunable_jobs(*jobs, states, older_than_s, std::time(nullptr), skipped);
    Deleters deleters(ctx, std::move(first), ns);
    int code = k_exit_ok;
    int done = 0;
    for (const job::JobStatus& job : prunable) {
        std::string ref = job::job_ref(job.kind, job.name);
        ref += all_namespaces && !here ? fmt::format(" (namespace {})", job.namespace_) : "";
        if (dry_run) {
            ctx.out << ref << " would be deleted\n";
            ++done;
            continue;
        }
        auto removed =
            deleters.in(all_namespaces && !here ? job.namespace_ : ns).remove(job.name, false);
        if (!removed) {
            code = report_error(ctx, fmt::format("{}: {}", ref, removed.error()),
                                removed.error_code(k_exit_cluster));
            continue;
        }
        ctx.out << ref << (here ? " deleted\n" : " deleted (record kept)\n");
        ++done;
    }
    if (skipped > 0) {
        ctx.err << fmt::format("kftrain: note: {} with no finished time left as they are\n",
                               util::counted(skipped, "finished job"));
    }
    if (prunable.empty()) {
        ctx.out << fmt::format("No finished jobs older than {}.\n", older_than);
        return code;
    }
    ctx.out << fmt::format("{} {}\n", util::counted(done, "job"),
                           dry_run ? "would be deleted" : "deleted");
    return code;
}

}  // namespace kftrain::cli
