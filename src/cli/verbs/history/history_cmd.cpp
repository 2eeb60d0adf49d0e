#include "cli/verbs/history/history_cmd.h"

#include <fmt/format.h>

#include <ctime>
#include <memory>

#include "backend/select.h"
#include "cli/flags.h"
#include "cli/verb.h"
#include "cli/verbs/history/history_flags.h"
#include "estimate/units.h"
#include "util/text.h"
#include "util/text_table.h"
#include "util/time_text.h"

namespace kftrain::cli {
namespace {

constexpr const char* k_history_examples =
    "Examples:\n"
    "  # The finished jobs kftrain recorded in this namespace, newest first\n"
    "  kftrain history -n ml-training\n"
    "  # The jobs of every namespace that failed in the last week\n"
    "  kftrain history -A --since 7d --state Failed\n"
    "  # The same for a script\n"
    "  kftrain history -A --since 7d -o json\n"
    "  # Every context's records, with a CONTEXT column\n"
    "  kftrain history --all-contexts";

constexpr const char* k_no_records =
    "No records in history (kftrain records a cluster job when it first sees it finished).\n";

// The most of a failed job's "why" a row shows; -o json has all of it.
constexpr std::size_t k_why_width = 60;

std::string run_cell(const history::Summary& summary) {
    return summary.run_s ? util::format_duration(*summary.run_s) : "unknown";
}

std::string cost_cell(const history::Summary& summary) {
    return summary.cost.amount ? estimate::format_money(*summary.cost.amount) : "-";
}

void print_records(std::ostream& out, const std::vector<history::Listed>& records,
                   view::OutputFormat format, std::time_t now, bool contexts) {
    if (format == view::OutputFormat::Json || format == view::OutputFormat::Yaml) {
        nlohmann::json items = nlohmann::json::array();
        for (const history::Listed& listed : records) {
            nlohmann::json item = history::summary_to_json(listed.summary);
            item["path"] = listed.path;
            items.push_back(std::move(item));
        }
        view::print_json_items(out, items, format);
        return;
    }
    std::vector<std::string> headers = {"NAME",     "NAMESPACE", "KIND", "STATE",
                                        "FINISHED", "RUN",       "COST", "WHY"};
    if (contexts) {
        headers.insert(headers.begin(), "CONTEXT");
    }
    util::TextTable table(headers);
    for (const history::Listed& listed : records) {
        const history::Summary& s = listed.summary;
        std::vector<std::string> row = {s.name,
                                        s.namespace_,
                                        s.kind,
                                        s.phase,
                                        age_text(s.finished, now),
                                        run_cell(s),
                                        cost_cell(s),
                                        util::excerpt(s.why, k_why_width)};
        if (contexts) {
            row.insert(row.begin(), s.context);
        }
        table.add_row(std::move(row));
    }
    table.print(out);
}

}  // namespace

void setup_history(CLI::App& app, Context& ctx) {
    auto options = std::make_shared<HistoryOptions>();
    auto* sub = app.add_subcommand("history",
                                   "List the finished cluster jobs kftrain recorded, newest first");
    sub->footer(k_history_examples);
    sub->add_flag("-A,--all-namespaces", options->all_namespaces,
                  "Records of every namespace of the current context");
    sub->add_flag("--all-contexts", options->all_contexts,
                  "Records of every kubeconfig context, with a CONTEXT column (-n narrows them)");
    sub->add_option("--since", options->since,
                    duration_help("Only jobs that finished within this long; days too: 7d"))
        ->type_name("DURATION");
    sub->add_option("--state", options->state,
                    "Only jobs that ended so: Succeeded, Failed, or Succeeded,Failed")
        ->type_name("STATES");
    sub->add_option("-o,--output", options->output, view::output_flag_help(view::k_table_formats));
    run_when_parsed(*sub, options, ctx);
}

util::Status HistoryOptions::complete(const Context& ctx) {
    filter = records_filter(ctx.global, all_contexts, all_namespaces);
    return util::ok_status();
}

util::Status HistoryOptions::validate() {
    auto parsed_since = parse_age_flag("--since", since);
    if (!parsed_since) {
        return parsed_since.error_value();
    }
    since_s = *parsed_since;
    auto parsed_states = parse_states(state);
    if (!parsed_states) {
        return parsed_states.error_value();
    }
    states = *parsed_states;
    auto parsed = view::parse_output_format(output, view::k_table_formats);
    if (!parsed) {
        return parsed.error_value();
    }
    format = *parsed;
    return util::ok_status();
}

int HistoryOptions::run(Context& ctx) const {
    const std::time_t now = std::time(nullptr);
    history::Filter wanted = filter;
    wanted.since = since_s > 0 ? static_cast<double>(now) - since_s : 0;
    history::Listing listing = history::list_records(wanted);
    for (const std::string& unreadable : listing.unreadable) {
        ctx.err << "kftrain: warning: " << util::escape_line(unreadable) << "\n";
    }
    std::vector<history::Listed> shown;
    for (history::Listed& listed : listing.records) {
        for (const std::string& damaged : listed.damaged) {
            ctx.err << "kftrain: warning: " << util::escape_line(listed.path + ": " + damaged)
                    << "\n";
        }
        if (states.count(job::parse_phase(listed.summary.phase)) > 0) {
            shown.push_back(std::move(listed));
        }
    }
    if (shown.empty() && format == view::OutputFormat::Table) {
        ctx.err << k_no_records;
        return k_exit_ok;
    }
    print_records(ctx.out, shown, format, now, all_contexts);
    return k_exit_ok;
}

}  // namespace kftrain::cli
