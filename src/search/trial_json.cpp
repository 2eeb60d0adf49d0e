#include "search/trial_json.h"

#include <algorithm>

#include "tune/suggest.h"
#include "util/json_optional.h"

namespace kftrain::search {

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

namespace {

// Read the parameters of a trial: an object of name -> value, or the earlier list of
// {name, value}.
tune::Assignment read_params(const util::JsonFields& f, const std::vector<std::string>& order) {
    tune::Assignment out;
    const json& params = f.doc().contains("parameters") ? f.doc().at("parameters") : json();
    if (params.is_array()) {  // records written before the one shape
        for (const auto& p : f.objects("parameters")) {
            out.emplace_back(p.get<std::string>("name", "", true),
                             p.get<std::string>("value", "", true));
        }
        return out;
    }
    const auto values = f.strings("parameters");
    f.check(params.is_object(), "parameters", "an object");
    for (const auto& name : order) {
        if (auto it = values.find(name); it != values.end()) {
            out.emplace_back(name, it->second);
        }
    }
    for (const auto& [name, value] : values) {
        if (std::find(order.begin(), order.end(), name) == order.end()) {
            out.emplace_back(name, value);
        }
    }
    return out;
}

}  // namespace

tune::TrialRecord trial_from_json(const util::JsonFields& f,
                                  const std::vector<std::string>& param_order) {
    tune::TrialRecord t;
    t.index = f.get("index", 0, true);
    t.name = f.get<std::string>("name", "", true);
    t.params = read_params(f, param_order);
    t.state = tune::parse_trial_state(f.get<std::string>("state", "", true));
    if (f.doc().contains("objective") && !f.doc().at("objective").is_null()) {
        t.objective = f.get("objective", 0.0);
    }
    t.metrics = f.numbers("metrics");
    t.started = f.get<std::string>("started", "");
    t.finished = f.get<std::string>("finished", "");
    t.message = f.get<std::string>("message", "");
    if (f.doc().contains("cost") && !f.doc().at("cost").is_null()) {
        t.cost = f.get("cost", 0.0);
    }
    return t;
}

}  // namespace kftrain::search
