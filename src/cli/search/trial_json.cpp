#include "cli/search/trial_json.h"

#include <algorithm>

#include "util/json_optional.h"

namespace kftrain::cli::search {

using nlohmann::json;

json trial_to_json(const tune::TrialRecord& t) {
    json params = json::object();
    for (const auto& [name, value] : t.params) {
        params[name] = value;
    }
    return {{"index", t.index},
            {"name", t.name},
            {"parameters", params},
            {"state", tune::trial_state_name(t.state)},
            {"objective", util::optional_json(t.objective)},
            {"metrics", t.metrics},
            {"started", t.started},
            {"finished", t.finished},
            {"message", t.message},
            {"cost", util::optional_json(t.cost)}};
}

tune::TrialRecord trial_from_json(const json& doc, const std::vector<std::string>& param_order) {
    tune::TrialRecord t;
    t.index = doc.at("index").get<int>();
    t.name = doc.at("name").get<std::string>();
    const json& params = doc.at("parameters");
    if (params.is_array()) {  // records written before the one shape
        for (const auto& p : params) {
            t.params.emplace_back(p.at("name").get<std::string>(),
                                  p.at("value").get<std::string>());
        }
    } else {
        for (const auto& name : param_order) {
            if (params.contains(name)) {
                t.params.emplace_back(name, params.at(name).get<std::string>());
            }
        }
        for (const auto& [name, value] : params.items()) {
            if (std::find(param_order.begin(), param_order.end(), name) == param_order.end()) {
                t.params.emplace_back(name, value.get<std::string>());
            }
        }
    }
    t.state = tune::parse_trial_state(doc.at("state").get<std::string>());
    util::read_optional(doc, "objective", t.objective);
    t.metrics = doc.value("metrics", std::map<std::string, double>{});
    t.started = doc.value("started", "");
    t.finished = doc.value("finished", "");
    t.message = doc.value("message", "");
    util::read_optional(doc, "cost", t.cost);
    return t;
}

}  // namespace kftrain::cli::search
