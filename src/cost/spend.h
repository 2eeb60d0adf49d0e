#pragma once

#include <ctime>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "cost/job_cost.h"
#include "history/record.h"
#include "job/status.h"
#include "util/result.h"

namespace kftrain::cost {

// What jobs cost, added up (`kftrain cost`, docs/history.md): one item per job, from its
// record in history, from a live job's status, or from a local job's (what it would have cost
// on the cluster); rows by a key (--by), and their total.

// What rows are made by: a job (namespace/name), a namespace, a Kueue LocalQueue, a label's
// value, or who submitted the job (label kftrain.io/submitted-by).
enum class SpendKey { Job, Namespace, Queue, Label, User };

struct SpendGrouping {
    SpendKey key = SpendKey::Job;
    std::string label;  // the KEY of label:KEY
};

// Parse --by: job, namespace, queue, user or label:KEY; the error names the flag, the values
// it takes and the value ("--by: must be job, namespace, queue, user or label:KEY (got x)").
util::Result<SpendGrouping> parse_spend_grouping(const std::string& text);

// Return --by's value as typed back: "namespace", "label:team".
std::string grouping_name(const SpendGrouping& grouping);

// Where an item's figures come from.
enum class SpendSource { Record, Live, Local };

// One job's spend.
struct SpendItem {
    std::string name;
    std::string namespace_;
    std::string kind;
    std::string queue;                          // its LocalQueue, "" for none
    std::map<std::string, std::string> labels;  // submitted-by among them
    std::optional<double> run_s;                // none: unknown, never 0 for that
    int replicas = 0;                           // 0: unknown
    std::optional<double> amount;               // none: not priced (unpriced says why)
    std::string unpriced;
    std::string currency;
    std::optional<double> estimated;  // the estimate made at submit, if any
    SpendSource source = SpendSource::Record;
};

// Return the item of a job's record: its summary's run time, cost and estimate.
SpendItem spend_of_record(const history::Summary& summary);

// Return the item of a live or local job: its cost so far (finished: its whole cost) as
// job_cost prices it, and the estimate submit stamped (annotation kftrain.io/estimated-cost).
SpendItem spend_of_job(const job::JobStatus& status, const Pricing& pricing, std::time_t now);

// Return the items of the live (or local) jobs that count beside the records: each job not
// recorded (its uid among recorded_uids: its record counts it) and, with since_s above 0, not
// finished longer ago than since_s.
std::vector<SpendItem> live_spend(const std::vector<job::JobStatus>& jobs,
                                  const std::set<std::string>& recorded_uids, double since_s,
                                  const Pricing& pricing, std::time_t now);

// One row: the items of one key, added up.
struct SpendRow {
    std::string key;  // "team-a/bert", "team-a", "(none)", "(unknown)"
    int jobs = 0;
    double run_s = 0;                   // of the jobs whose run time is known
    int unknown_runs = 0;               // jobs whose run time is unknown
    double replica_hours = 0;           // run time x replicas, of the jobs where both are known
    double amount = 0;                  // of the priced jobs
    int priced = 0;                     // jobs priced
    std::vector<std::string> unpriced;  // why each job not priced was not ("team-a/x: why")
    double estimated = 0;               // of the jobs with an estimate
    int estimates = 0;                  // jobs with an estimate
};

// What `kftrain cost` shows: rows (most costly first), their total and the currency.
struct Spend {
    SpendGrouping grouping;
    std::vector<SpendRow> rows;
    SpendRow total;  // key "TOTAL"
    std::string currency;
};

// Group items into rows by the grouping's key and add up the total.
Spend group_spend(const std::vector<SpendItem>& items, const SpendGrouping& grouping);

// Return a row's run time as shown: "2h5m", "unknown" when no job's is known, "2h5m + 1
// unknown" when some are not.
std::string run_text(const SpendRow& row);

// Return a row's cost as shown: "$12.30", "- (why)" for one job not priced, "- (3 not
// priced)", "$12.30 + 1 not priced".
std::string cost_text(const SpendRow& row);

// Return the total's cost as shown: "$12.30", "$12.30, 2 jobs not priced", "-, 1 job not
// priced".
std::string total_cost_text(const SpendRow& total);

// Return the estimates made at submit as shown: "-" for none, "$10.00", "$10.00 (2 of 3
// jobs)" when not every job had one.
std::string estimate_text(const SpendRow& row);

// Return the spend as -o json prints it: rows, total, currency, unpriced (each job not priced
// and why).
nlohmann::ordered_json spend_to_json(const Spend& spend);

// Return the spend as CSV: a header and one line per row, then the total (key TOTAL); lines end
// in \n, fields are escaped as RFC 4180 says (quoted where they hold a comma, a quote or a line
// break; quotes doubled); a figure not known is an empty field.
std::string spend_csv(const Spend& spend);

// Return one CSV field, escaped as RFC 4180 says.
std::string csv_field(const std::string& text);

}  // namespace kftrain::cost
