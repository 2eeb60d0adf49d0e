#include "search/search_store.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>

#include "job/exit_codes.h"
#include "search/trial_json.h"
#include "state/state_files.h"
#include "util/files.h"
#include "util/json_fields.h"
#include "util/json_optional.h"
#include "util/json_text.h"
#include "util/process_info.h"

namespace kftrain::search {
namespace fs = std::filesystem;
namespace {

using kftrain::tune::SearchStatus;
using kftrain::tune::TrialRecord;
using nlohmann::json;

using util::optional_json;

void read_record(const util::JsonFields& f, SearchRecord& record) {
    SearchStatus& s = record.status;
    s.name = f.get<std::string>("name", "", true);
    s.namespace_ = f.get<std::string>("namespace", "default");
    s.backend = "local";
    s.job_kind = f.get<std::string>("jobKind", "PyTorchJob");
    s.phase = f.get<std::string>("phase", "");
    s.reason = f.get<std::string>("reason", "");
    s.message = f.get<std::string>("message", "");
    f.check(f.doc().contains("objective"), "objective", "an object");
    const util::JsonFields objective = f.object("objective");
    s.objective_metric = objective.get<std::string>("metric", "", true);
    s.maximize = objective.get<std::string>("type", "maximize") != "minimize";
    if (objective.doc().contains("goal") && !objective.doc().at("goal").is_null()) {
        s.goal = objective.get("goal", 0.0);
    }
    s.algorithm = f.get<std::string>("algorithm", "");
    record.seed = f.get("seed", std::uint64_t{0});
    s.max_trials = f.get("maxTrials", 0);
    s.parallel = f.get("parallel", 0);
    s.max_failed_trials = f.get("maxFailedTrials", 0);
    for (const auto& p : f.objects("parameters")) {
        s.param_names.push_back(p.get<std::string>("name", "", true));
        record.spaces.push_back(p.get<std::string>("space", ""));
    }
    for (const auto& t : f.objects("trials")) {
        s.trials.push_back(trial_from_json(t, s.param_names));
    }
    s.best_trial = f.get<std::string>("bestTrial", "");
    s.created = f.get<std::string>("created", "");
    s.finished = f.get<std::string>("finished", "");
    if (f.doc().contains("cost") && !f.doc().at("cost").is_null()) {
        s.cost = f.get("cost", 0.0);
    }
    s.currency = f.get<std::string>("currency", "");
    s.cost_basis = f.get<std::string>("costBasis", "");
    record.run = f.get<std::string>("run", "");
    const util::JsonFields process = f.object("process");
    record.pid = process.get("pid", 0);  // an int: a pid_t, never a group or -1
    record.pid_ticks = process.get("startTicks", 0ULL);
}

// Check what a record names against the search it was read for: its name, and trials named
// <search>-<index> (tune delete removes the jobs of those names, and no other).
util::Status check_record(const SearchRecord& record, const std::string& name) {
    if (record.status.name != name) {
        return util::error(
            fmt::format("field 'name' is {}, not the search's name", record.status.name));
    }
    const auto& trials = record.status.trials;
    for (size_t i = 0; i < trials.size(); ++i) {
        if (trials[i].name != fmt::format("{}-{}", name, trials[i].index)) {
            return util::error(fmt::format("field 'trials[{}].name' is {}, not {}-{}", i,
                                           trials[i].name, name, trials[i].index));
        }
    }
    return util::ok_status();
}

}  // namespace

std::string searches_root() {
    return state::state_folder(state::k_searches_folder);
}

std::string search_path(const std::string& name) {
    return searches_root() + "/" + name + "/search.json";
}

std::string search_lock_path(const std::string& name) {
    return searches_root() + "/" + state::k_locks_folder + "/" + name + ".lock";
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
            {"run", record.run},
            {"process", {{"pid", record.pid}, {"startTicks", record.pid_ticks}}}};
}

util::Result<SearchRecord> record_from_json(const json& doc) {
    if (!doc.is_object()) {
        return util::error("not a JSON object");
    }
    try {
        SearchRecord record;
        read_record(util::JsonFields(doc, ""), record);
        return record;
    } catch (const util::JsonFieldError& e) {
        return util::error(e.message);
    } catch (const json::exception&) {
        return util::error("not a search record");  // JsonFields checks each type first
    }
}

bool search_exists(const std::string& name) {
    std::error_code ec;
    return state::check_job_name(name).ok() &&
           fs::exists(fs::path(search_path(name)).parent_path(), ec);
}

util::Result<SearchRecord> read_search(const std::string& name, bool hint) {
    auto checked = state::check_job_name(name);
    if (!checked) {
        return util::error(
            fmt::format("search name: must be a lower-case DNS-1035 label (got {})", name),
            k_exit_bad_input);
    }
    const std::string path = search_path(name);
    std::error_code ec;
    if (!fs::exists(path, ec)) {
        return util::error(fmt::format("search {} not found on this machine (no {})", name, path),
                           k_exit_not_found);
    }
    auto damaged = [&](const std::string& why) {
        if (!hint) {
            return util::error(why, k_exit_cluster);
        }
        return util::error(
            fmt::format("{}; remove the search with: kftrain tune delete {} --local", why, name),
            k_exit_cluster);
    };
    auto text = state::read_state_file(path);  // bounded: state::k_max_state_bytes
    if (!text) {
        return damaged(text.error());
    }
    json doc = util::parse_untrusted_json(*text);
    if (doc.is_discarded()) {
        return damaged(fmt::format("{}: not valid JSON", path));
    }
    auto record = record_from_json(doc);
    if (record) {
        if (auto matches = check_record(*record, name); !matches) {
            return damaged(fmt::format("{}: {}", path, matches.error()));
        }
        return record;
    }
    return damaged(fmt::format("{}: {}", path, record.error()));
}

bool search_process_running(const SearchRecord& record) {
    return record.pid > 0 && record.pid_ticks != 0 &&
           util::process_alive(record.pid, record.pid_ticks);
}

util::Status write_search(const SearchRecord& record) {
    const std::string path = search_path(record.status.name);
    auto made = util::make_private_dir(fs::path(path).parent_path().string());
    if (!made) {
        return made;
    }
    return util::write_file_atomic(path, util::json_text(record_to_json(record), 2) + "\n");
}

util::Status remove_search(const std::string& name) {
    auto checked = state::check_job_name(name);
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

}  // namespace kftrain::search
