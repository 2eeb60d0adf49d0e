#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "util/result.h"

namespace kftrain::history {

// The record of one finished cluster job (docs/history.md): what kftrain keeps of it once
// its job, pods or logs may be gone (a ttlSecondsAfterFinished, a cleanup, a colleague).
// On disk a record is JSON lines (record_lines): its summary first, alone on the first line,
// so `history` and `cost` read that line only; then one line per part (the job's object, its
// pods, its events, its diagnosis, each replica's log), so that a damaged part leaves the
// others readable.

// A replica's log as kept: its last lines, at most k_record_log_lines and k_record_log_bytes,
// masked as diagnose masks secrets (util::mask_secrets).
inline constexpr std::size_t k_record_log_lines = 2000;
inline constexpr std::size_t k_record_log_bytes = std::size_t{256} << 10;
// The most bytes kftrain reads of a record, and of its first line.
inline constexpr std::size_t k_max_record_bytes = std::size_t{256} << 20;
inline constexpr std::size_t k_max_summary_bytes = std::size_t{256} << 10;
// The version a record's summary carries (field "version"); a later one is read as far as
// its fields are known.
inline constexpr int k_record_version = 1;

// What a job cost, as kept: the rules of cost::job_cost over the time it ran (run_s).
struct RecordCost {
    std::optional<double> amount;  // none: it could not be priced (unpriced says why)
    std::string currency;
    double per_hour = 0;   // all replicas together
    std::string basis;     // "2 replicas x $0.08/h each (2 cores, 4 GiB)"
    std::string prices;    // where the prices came from
    std::string unpriced;  // why there is no amount ("" when there is one)
};

// The first line of a record: all that `history` and `cost` read.
struct Summary {
    int version = k_record_version;
    std::string context;  // the kubeconfig context the job ran in
    std::string namespace_;
    std::string name;
    std::string uid;      // metadata.uid: a job re-created under the same name is another record
    std::string kind;     // PyTorchJob, TrainJob, TFJob, XGBoostJob, JAXJob
    std::string phase;    // Succeeded or Failed
    std::string reason;   // of its last condition
    std::string created;  // RFC 3339; empty: unknown
    std::string started;
    std::string finished;
    std::string recorded;  // when this record was written
    // Seconds it ran, its suspensions and time in a queue left out; none: unknown (a missing
    // timestamp), never 0 for that.
    std::optional<double> run_s;
    int replicas = 0;          // replicas it asked for
    int restarts = 0;          // of all its replicas together
    std::string queue;         // its Kueue LocalQueue, "" for none
    std::string submitted_by;  // label kftrain.io/submitted-by, "" when absent
    std::map<std::string, std::string> labels;
    RecordCost cost;
    std::optional<double> estimated_cost;  // the --max-cost estimate made at submit, if any
    std::string why;  // the diagnosis's one line for a failed job, "" otherwise
    // Some replica still ran when it was written (a worker's last lines after the master's
    // success ended the job): a later sighting with every replica ended replaces it, once.
    bool partial = false;
};

// One replica's log of one attempt, as kept.
struct ReplicaLog {
    std::string replica;    // master-0, worker-1, node-0
    bool previous = false;  // the attempt before the last restart
    std::vector<std::string> lines;
    bool cut = false;  // earlier lines were left out (k_record_log_lines, k_record_log_bytes)
};

// A whole record: the summary and the parts.
struct Record {
    Summary summary;
    nlohmann::json job;        // the job's last object, as `kubectl get -o json` printed it
    nlohmann::json pods;       // its pods' list object (kind List), as kubectl printed it
    nlohmann::json events;     // its and its pods' events' list object
    nlohmann::json diagnosis;  // the diagnosis, as `diagnose -o json` prints it
    std::vector<ReplicaLog> logs;
    // Parts that could not be read, each "part 'pods': not JSON" (read_record only).
    std::vector<std::string> damaged;
};

// Mask what a record must never hold: the value of every env entry whose name names a
// credential (HF_TOKEN, DB_PASSWORD: util::names_credential), and every credential in any
// string of the job's object, its pods, events and diagnosis (util::mask_secrets), as the live
// diagnosis masks what it quotes. write_record masks every record it writes.
void mask_record(Record& record);

// Return a replica's log as kept: the last lines of text within the caps, masked.
ReplicaLog keep_log(const std::string& replica, bool previous,
                    const std::vector<std::string>& lines);

// Return the summary as the JSON object of a record's first line, and back; reading takes
// what it can and names, in damaged, each field it could not read.
nlohmann::json summary_to_json(const Summary& summary);
Summary summary_from_json(const nlohmann::json& doc, std::vector<std::string>& damaged);

// Return the record as the text of its file: JSON lines, the summary first.
std::string record_lines(const Record& record);

// Read a record's text: the summary from its first line (error when that is not a JSON
// object); each later part that is not readable is named in damaged, the rest are read.
util::Result<Record> parse_record(const std::string& text);

}  // namespace kftrain::history
