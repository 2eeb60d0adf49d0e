#include "cli/search/search_store.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>

#include "cli/exit_codes.h"
#include "cli/local/state/state_dir.h"
#include "cli/search/trial_json.h"
#include "util/json_optional.h"

namespace kftrain::cli::search {
namespace fs = std::filesystem;
namespace {

using kftrain::tune::SearchStatus;
using kftrain::tune::TrialRecord;
using nlohmann::json;

using util::optional_json;
using util::read_optional;
}  // namespace

std::string searches_root() {
    return (fs::path(local::jobs_root()).parent_path() / "searches").string();
}

std::string search_path(const std::string& name) {
    return searches_root() + "/" + name + "/search.json";
}

std::vector<std::string> search_names() {
    std::vector<std::string> names;
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(searches_root(), ec)) {
        if (entry.is_directory(ec) && fs::exists(entry.path() / "search.json", ec)) {
            names.push_back(entry.path().filename().string());
        }
    }
    std::sort(names.begin(), names.end());
    return names;
}

json record_to_json(const SearchRecord& record) {
    const SearchStatus& s = record.status;
    json params = json::array();
    for (size_t i = 0; i < s.param_names.size(); ++i) {
        params.push_back({{"name", s.param_names[i]},
                          {"space", i < record.spaces.size() ? record.spaces[i] : ""}});
    }
    json trials = json::array();
    for (const auto& t : s.trials) {
        trials.push_back(trial_to_json(t));
    }
    return {{"version", 1},
            {"name", s.name},
            {"namespace", s.namespace_},
            {"jobKind", s.job_kind},
            {"phase", s.phase},
            {"reason", s.reason},
            {"message", s.message},
            {"objective",
             {{"metric", s.objective_metric},
              {"type", s.maximize ? "maximize" : "minimize"},
              {"goal", optional_json(s.goal)}}},
            {"algorithm", s.algorithm},
            {"seed", record.seed},
            {"maxTrials", s.max_trials},
            {"parallel", s.parallel},
            {"maxFailedTrials", s.max_failed_trials},
            {"parameters", params},
            {"trials", trials},
            {"bestTrial", s.best_trial},
            {"created", s.created},
            {"finished", s.finished},
            {"cost", optional_json(s.cost)},
            {"currency", s.currency},
            {"costBasis", s.cost_basis},
            {"process", {{"pid", record.pid}, {"startTicks", record.pid_ticks}}}};
}

util::Result<SearchRecord> record_from_json(const json& doc) {
    try {
        SearchRecord record;
        SearchStatus& s = record.status;
        s.name = doc.at("name").get<std::string>();
        s.namespace_ = doc.value("namespace", "default");
        s.backend = "local";
        s.job_kind = doc.value("jobKind", "PyTorchJob");
        s.phase = doc.value("phase", "");
        s.reason = doc.value("reason", "");
        s.message = doc.value("message", "");
        const json& objective = doc.at("objective");
        s.objective_metric = objective.at("metric").get<std::string>();
        s.maximize = objective.value("type", "maximize") != "minimize";
        read_optional(objective, "goal", s.goal);
        s.algorithm = doc.value("algorithm", "");
        record.seed = doc.value("seed", std::uint64_t{0});
        s.max_trials = doc.value("maxTrials", 0);
        s.parallel = doc.value("parallel", 0);
        s.max_failed_trials = doc.value("maxFailedTrials", 0);
        for (const auto& p : doc.at("parameters")) {
            s.param_names.push_back(p.at("name").get<std::string>());
            record.spaces.push_back(p.value("space", ""));
        }
        for (const auto& t : doc.at("trials")) {
            s.trials.push_back(trial_from_json(t, s.param_names));
        }
        s.best_trial = doc.value("bestTrial", "");
        s.created = doc.value("created", "");
        s.finished = doc.value("finished", "");
        read_optional(doc, "cost", s.cost);
        s.currency = doc.value("currency", "");
        s.cost_basis = doc.value("costBasis", "");
        if (doc.contains("process")) {
            record.pid = doc["process"].value("pid", 0LL);
            record.pid_ticks = doc["process"].value("startTicks", 0ULL);
        }
        return record;
    } catch (const json::exception& e) {
        return util::error(fmt::format("malformed local search record: {}", e.what()));
    }
}

util::Result<SearchRecord> read_search(const std::string& name) {
    auto checked = local::check_job_name(name);
    if (!checked) {
        return util::error(
            fmt::format("search name: must be a lower-case DNS-1035 label (got {})", name),
            k_exit_bad_input);
    }
    auto text = local::read_state_file(search_path(name));
    if (!text) {
        return util::error(
            fmt::format("search {} not found on this machine (no {})", name, search_path(name)),
            k_exit_not_found);
    }
    json doc = json::parse(*text, nullptr, false);
    if (doc.is_discarded()) {
        return util::error(fmt::format("{}: not valid JSON", search_path(name)));
    }
    auto record = record_from_json(doc);
    if (!record) {
        return util::error(fmt::format("{}: {}", search_path(name), record.error()));
    }
    return record;
}

util::Status write_search(const SearchRecord& record) {
    const std::string path = search_path(record.status.name);
    std::error_code ec;
    fs::create_directories(fs::path(path).parent_path(), ec);
    if (ec) {
        return util::error(fmt::format("cannot create {}: {}",
                                       fs::path(path).parent_path().string(), ec.message()));
    }
    return local::write_file_atomic(path, record_to_json(record).dump(2) + "\n");
}

util::Status remove_search(const std::string& name) {
    auto checked = local::check_job_name(name);
    if (!checked) {
        return checked.error_value();
    }
    const auto dir = fs::path(search_path(name)).parent_path();
    std::error_code ec;
    fs::remove_all(dir, ec);
    if (ec) {
        return util::error(fmt::format("cannot remove {}: {}", dir.string(), ec.message()));
    }
    return util::ok_status();
}

}  // namespace kftrain::cli::search
