#include "cli/verbs/history/cost_cmd.h"

#include <fmt/format.h>

#include <memory>

#include "backend/select.h"
#include "cli/flags.h"
#include "cli/verb.h"
#include "cli/verbs/history/history_flags.h"
#include "cost/estimate_inputs.h"
#include "estimate/units.h"
#include "util/text.h"
#include "util/text_table.h"
#include "util/time_text.h"

namespace kftrain::cli {
namespace {

constexpr const char* k_cost_examples =
    "Examples:\n"
    "  # What each job of this namespace cost in the last 30 days, and the total\n"
    "  kftrain cost\n"
    "  # By namespace, every namespace, this quarter, for a spreadsheet\n"
    "  kftrain cost -A --since 90d --by namespace -o csv > spend.csv\n"
    "  # By who submitted them; exit 1 when the total is over 500\n"
    "  kftrain cost -A --by user --budget 500";

// The most jobs not priced the table names below its total.
constexpr std::size_t k_unpriced_listed = 10;

std::string key_header(const cost::SpendGrouping& grouping) {
    switch (grouping.key) {
        case cost::SpendKey::Job:
            return "JOB";
        case cost::SpendKey::Namespace:
            return "NAMESPACE";
        case cost::SpendKey::Queue:
            return "QUEUE";
        case cost::SpendKey::Label:
            return "LABEL " + grouping.label;
        case cost::SpendKey::User:
            return "USER";
    }
    return "JOB";
}

void print_spend_table(std::ostream& out, const cost::Spend& spend) {
    util::TextTable table(
        {key_header(spend.grouping), "JOBS", "RUN", "REPLICA-HOURS", "COST", "ESTIMATE"});
    auto add = [&table](const cost::SpendRow& row, const std::string& cost) {
        table.add_row({row.key, std::to_string(row.jobs), cost::run_text(row),
                       fmt::format("{:.1f}", row.replica_hours), cost, cost::estimate_text(row)});
    };
    for (const cost::SpendRow& row : spend.rows) {
        add(row, cost::cost_text(row));
    }
    add(spend.total, cost::total_cost_text(spend.total));
    table.print(out);
    // A row of one job says why it was not priced; a row of many cannot, so the first few
    // are listed (-o json lists them all).
    if (spend.grouping.key == cost::SpendKey::Job) {
        return;
    }
    const auto& unpriced = spend.total.unpriced;
    for (size_t i = 0; i < unpriced.size() && i < k_unpriced_listed; ++i) {
        out << "not priced: " << util::escape_line(unpriced[i]) << "\n";
    }
    if (unpriced.size() > k_unpriced_listed) {
        out << fmt::format("not priced: {} more (-o json lists them all)\n",
                           unpriced.size() - k_unpriced_listed);
    }
}

void print_spend(std::ostream& out, const cost::Spend& spend, view::OutputFormat format) {
    switch (format) {
        case view::OutputFormat::Csv:
            out << cost::spend_csv(spend);
            return;
        case view::OutputFormat::Json:
        case view::OutputFormat::Yaml:
            view::print_data(out, cost::spend_to_json(spend), format);
            return;
        case view::OutputFormat::Table:
        case view::OutputFormat::Wide:
            print_spend_table(out, spend);
            return;
    }
}

}  // namespace

void setup_cost(CLI::App& app, Context& ctx) {
    auto options = std::make_shared<CostOptions>();
    auto* sub = app.add_subcommand(
        "cost", "What jobs cost: recorded jobs and live ones, by job, namespace, queue or user");
    sub->footer(k_cost_examples);
    sub->add_option("--since", options->since,
                    duration_help("Jobs that finished within this long, and those still running; "
                                  "days too: 30d"))
        ->type_name("DURATION")
        ->capture_default_str();
    sub->add_option("--by", options->by, "Rows by job, namespace, queue, user or label:KEY")
        ->type_name("KEY")
        ->capture_default_str();
    sub->add_flag("-A,--all-namespaces", options->all_namespaces, "Jobs of every namespace");
    sub->add_flag("--all-contexts", options->all_contexts,
                  "Records of every kubeconfig context too (live jobs: the current one's)");
    sub->add_option("-o,--output", options->output, view::output_flag_help(view::k_cost_formats));
    sub->add_option("--budget", options->budget,
                    "Exit 1, saying so on stderr, when the total is over this amount (50, $12.50)")
        ->type_name("AMOUNT");
    sub->add_option("--prices", options->prices,
                    "Price catalog for live and local jobs (default: KFTRAIN_PRICES, else "
                    "built-in); records keep the cost they were priced at");
    run_when_parsed(*sub, options, ctx);
}

util::Status CostOptions::complete(const Context& ctx) {
    auto loaded = cost::load_pricing(prices, "");
    if (!loaded) {
        return loaded.error_value();
    }
    pricing = std::move(*loaded);
    filter = records_filter(ctx.global, all_contexts, all_namespaces);
    return util::ok_status();
}

util::Status CostOptions::validate() {
    auto parsed_since = parse_age_flag("--since", since);
    if (!parsed_since) {
        return parsed_since.error_value();
    }
    since_s = *parsed_since;
    auto parsed_by = cost::parse_spend_grouping(by);
    if (!parsed_by) {
        return parsed_by.error_value();
    }
    grouping = *parsed_by;
    auto parsed = view::parse_output_format(output, view::k_cost_formats);
    if (!parsed) {
        return parsed.error_value();
    }
    format = *parsed;
    if (!budget.empty()) {
        budget_amount = estimate::parse_money(budget);
        if (!budget_amount) {
            return util::error(
                fmt::format("--budget: must be an amount such as 50 or 12.50 (got {})",
                            util::excerpt(budget, 80)));
        }
    }
    return util::ok_status();
}

std::vector<cost::SpendItem> CostOptions::recorded(Context& ctx, std::time_t now,
                                                   std::set<std::string>& uids) const {
    history::Filter wanted = filter;
    wanted.since = since_s > 0 ? static_cast<double>(now) - since_s : 0;
    history::Listing listing = history::list_records(wanted);
    for (const std::string& unreadable : listing.unreadable) {
        ctx.err << "kftrain: warning: " << util::escape_line(unreadable) << "\n";
    }
    std::vector<cost::SpendItem> items;
    for (const history::Listed& listed : listing.records) {
        if (!listed.summary.uid.empty()) {
            uids.insert(listed.summary.uid);
        }
        items.push_back(cost::spend_of_record(listed.summary));
    }
    return items;
}

std::vector<cost::SpendItem> CostOptions::live(Context& ctx, std::time_t now,
                                               const std::set<std::string>& uids) const {
    auto jobs = backend::make_backend(ctx, "", ctx.global.namespace_)
                    ->list(all_namespaces || (all_contexts && ctx.global.namespace_.empty()));
    if (!jobs) {
        // The records still answer: a cluster out of reach leaves out only its live jobs.
        ctx.err << "kftrain: warning: live jobs not counted: " << util::escape_line(jobs.error())
                << "\n";
        return {};
    }
    return cost::live_spend(*jobs, uids, since_s, pricing, now);
}

int CostOptions::run(Context& ctx) const {
    const std::time_t now = std::time(nullptr);
    std::set<std::string> uids;
    std::vector<cost::SpendItem> items = recorded(ctx, now, uids);
    for (cost::SpendItem& item : live(ctx, now, uids)) {
        items.push_back(std::move(item));
    }
    const cost::Spend spend = cost::group_spend(items, grouping);
    if (items.empty() && format == view::OutputFormat::Table) {
        ctx.err << fmt::format("No jobs finished in the last {} or running.\n", since);
    } else {
        print_spend(ctx.out, spend, format);
    }
    if (budget_amount && spend.total.amount > *budget_amount) {
        ctx.err << fmt::format("over budget: {} > {}\n", estimate::format_money(spend.total.amount),
                               estimate::format_money(*budget_amount));
        return k_exit_job_failed;
    }
    return k_exit_ok;
}

}  // namespace kftrain::cli
