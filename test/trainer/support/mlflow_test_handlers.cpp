// The endpoints of the MLflow test server, checked against MLflow's REST API reference
// (api/2.0/mlflow: experiments/get-by-name, experiments/create, runs/create, runs/log-batch,
// runs/update, runs/get).
#include <algorithm>
#include <set>

#include "trainer/support/mlflow_test_server.h"

namespace trainer_test {
namespace {

using json = nlohmann::json;

constexpr std::size_t k_max_body = 1 << 20;

bool is_string_field(const json& j, const char* key) {
    return j.contains(key) && j[key].is_string();
}

bool is_int_field(const json& j, const char* key) {
    return j.contains(key) && j[key].is_number_integer();
}

// Return what is wrong with a list of {key, value} string pairs ("" when fine).
std::string check_key_values(const json& list, const char* what) {
    if (!list.is_array()) {
        return std::string(what) + " must be an array";
    }
    for (const auto& kv : list) {
        if (!is_string_field(kv, "key") || !is_string_field(kv, "value")) {
            return std::string(what) + " entries need string key and value: " + kv.dump();
        }
    }
    return "";
}

// Return what is wrong with a list of metrics ("" when fine).
std::string check_metrics(const json& list) {
    if (!list.is_array()) {
        return "metrics must be an array";
    }
    for (const auto& m : list) {
        if (!is_string_field(m, "key") || !m.contains("value") || !m["value"].is_number() ||
            !is_int_field(m, "timestamp") || (m.contains("step") && !is_int_field(m, "step"))) {
            return "metric needs string key, number value, integer timestamp and step: " + m.dump();
        }
    }
    return "";
}

std::string query_value(const std::string& query, const std::string& name) {
    const std::string prefix = name + "=";
    std::size_t start = 0;
    while (start <= query.size()) {
        const auto end = std::min(query.find('&', start), query.size());
        const auto part = query.substr(start, end - start);
        if (part.rfind(prefix, 0) == 0) {
            std::string value;
            const auto raw = part.substr(prefix.size());
            for (std::size_t i = 0; i < raw.size(); ++i) {
                if (raw[i] == '%' && i + 2 < raw.size()) {
                    value += static_cast<char>(std::stoi(raw.substr(i + 1, 2), nullptr, 16));
                    i += 2;
                } else {
                    value += raw[i] == '+' ? ' ' : raw[i];
                }
            }
            return value;
        }
        start = end + 1;
    }
    return "";
}

json run_info(const FakeRun& run) {
    json info = {{"run_id", run.run_id},
                 {"run_uuid", run.run_id},
                 {"experiment_id", run.experiment_id},
                 {"run_name", run.run_name},
                 {"status", run.status},
                 {"start_time", run.start_time},
                 {"lifecycle_stage", "active"}};
    if (run.end_time > 0) {
        info["end_time"] = run.end_time;
    }
    return info;
}

}  // namespace

MlflowTestServer::Answer MlflowTestServer::error(long status, const std::string& code,
                                                 const std::string& message) {
    return Answer{status, {{"error_code", code}, {"message", message}}};
}

MlflowTestServer::Answer MlflowTestServer::invalid(const std::string& what) {
    m_violations.push_back(what);
    return error(400, "INVALID_PARAMETER_VALUE", what);
}

std::string MlflowTestServer::add_experiment(const std::string& name) {
    std::lock_guard lock(m_mutex);
    const auto id = std::to_string(100 + m_next_id++);
    m_experiments[name] = id;
    return id;
}

MlflowTestServer::Answer MlflowTestServer::answer(const RecordedRequest& request) {
    std::lock_guard lock(m_mutex);
    const json body =
        request.method == "POST" ? json::parse(request.raw_body, nullptr, false) : json::object();
    if (request.method == "POST" && request.content_type != "application/json") {
        return invalid(request.path + ": POST needs Content-Type application/json");
    }
    if (!body.is_object()) {
        return invalid(request.path + ": body is not a JSON object");
    }
    return route(request, body);
}

MlflowTestServer::Answer MlflowTestServer::route(const RecordedRequest& request, const json& body) {
    if (request.path.rfind(k_mlflow_api_prefix, 0) != 0) {
        return error(404, "ENDPOINT_NOT_FOUND", request.path);
    }
    const std::string endpoint = request.path.substr(std::string(k_mlflow_api_prefix).size());
    const std::string expected_method =
        endpoint == "experiments/get-by-name" || endpoint == "runs/get" ? "GET" : "POST";
    if (request.method != expected_method) {
        return invalid(endpoint + " must be called with " + expected_method);
    }
    if (endpoint == "experiments/get-by-name") {
        return get_by_name(request);
    }
    if (endpoint == "experiments/create") {
        return create_experiment(body);
    }
    if (endpoint == "runs/create") {
        return create_run(body);
    }
    if (endpoint == "runs/log-batch") {
        return log_batch(body, request.raw_body.size());
    }
    if (endpoint == "runs/update") {
        return update_run(body);
    }
    if (endpoint == "runs/get") {
        return get_run(request);
    }
    return error(404, "ENDPOINT_NOT_FOUND", endpoint);
}

MlflowTestServer::Answer MlflowTestServer::get_by_name(const RecordedRequest& request) {
    const auto name = query_value(request.query, "experiment_name");
    if (name.empty()) {
        return invalid("experiments/get-by-name needs experiment_name");
    }
    const auto it = m_experiments.find(name);
    if (it == m_experiments.end()) {
        return error(404, "RESOURCE_DOES_NOT_EXIST",
                     "Could not find experiment with name '" + name + "'");
    }
    return Answer{
        200,
        {{"experiment",
          {{"experiment_id", it->second}, {"name", name}, {"lifecycle_stage", "active"}}}}};
}

MlflowTestServer::Answer MlflowTestServer::create_experiment(const json& body) {
    if (!is_string_field(body, "name") || body["name"].get<std::string>().empty()) {
        return invalid("experiments/create needs a string name");
    }
    const auto name = body["name"].get<std::string>();
    if (m_experiments.count(name) > 0) {
        return error(400, "RESOURCE_ALREADY_EXISTS", "Experiment '" + name + "' already exists.");
    }
    const auto id = std::to_string(100 + m_next_id++);
    m_experiments[name] = id;
    return Answer{200, {{"experiment_id", id}}};
}

MlflowTestServer::Answer MlflowTestServer::create_run(const json& body) {
    if (!is_string_field(body, "experiment_id") || !is_int_field(body, "start_time") ||
        (body.contains("run_name") && !body["run_name"].is_string())) {
        return invalid("runs/create needs string experiment_id, integer start_time: " +
                       body.dump());
    }
    if (body.contains("tags")) {
        if (auto bad = check_key_values(body["tags"], "tags"); !bad.empty()) {
            return invalid("runs/create: " + bad);
        }
    }
    FakeRun run;
    run.experiment_id = body["experiment_id"].get<std::string>();
    bool known = run.experiment_id == "0";
    for (const auto& [name, id] : m_experiments) {
        known = known || id == run.experiment_id;
    }
    if (!known) {
        return error(404, "RESOURCE_DOES_NOT_EXIST", "No experiment " + run.experiment_id);
    }
    run.run_id = "run" + std::to_string(m_next_id++) + "abcdef";
    run.run_name = body.value("run_name", "generated-name");
    run.start_time = body["start_time"].get<int64_t>();
    for (const auto& kv : body.value("tags", json::array())) {
        run.tags[kv["key"]] = kv["value"];
    }
    m_runs.push_back(run);
    return Answer{200, {{"run", {{"info", run_info(run)}, {"data", json::object()}}}}};
}

MlflowTestServer::Answer MlflowTestServer::log_batch(const json& body, std::size_t raw_size) {
    if (!is_string_field(body, "run_id")) {
        return invalid("runs/log-batch needs a string run_id");
    }
    const json metrics = body.value("metrics", json::array());
    const json params = body.value("params", json::array());
    const json tags = body.value("tags", json::array());
    for (const auto& bad : {check_metrics(metrics), check_key_values(params, "params"),
                            check_key_values(tags, "tags")}) {
        if (!bad.empty()) {
            return invalid("runs/log-batch: " + bad);
        }
    }
    if (metrics.size() > 1000 || params.size() > 100 || tags.size() > 100 ||
        metrics.size() + params.size() + tags.size() > 1000 || raw_size > k_max_body) {
        return invalid("runs/log-batch over MLflow's request limits");
    }
    auto run = std::find_if(m_runs.begin(), m_runs.end(),
                            [&](const FakeRun& r) { return r.run_id == body["run_id"]; });
    if (run == m_runs.end()) {
        return error(404, "RESOURCE_DOES_NOT_EXIST", "Run not found");
    }
    for (const auto& p : params) {
        const auto old = run->params.find(p["key"]);
        if (old != run->params.end() && old->second != p["value"]) {
            return error(400, "INVALID_PARAMETER_VALUE",
                         "Changing param values is not allowed. Param with key='" + old->first +
                             "' was already logged");
        }
        run->params[p["key"]] = p["value"];
    }
    for (const auto& t : tags) {
        run->tags[t["key"]] = t["value"];
    }
    run->metrics.insert(run->metrics.end(), metrics.begin(), metrics.end());
    return Answer{200, json::object()};
}

MlflowTestServer::Answer MlflowTestServer::update_run(const json& body) {
    static const std::set<std::string> statuses = {"RUNNING", "SCHEDULED", "FINISHED", "FAILED",
                                                   "KILLED"};
    if (!is_string_field(body, "run_id") ||
        (body.contains("status") &&
         (!body["status"].is_string() || statuses.count(body["status"]) == 0)) ||
        (body.contains("end_time") && !is_int_field(body, "end_time"))) {
        return invalid("runs/update needs run_id, a RunStatus, integer end_time: " + body.dump());
    }
    auto run = std::find_if(m_runs.begin(), m_runs.end(),
                            [&](const FakeRun& r) { return r.run_id == body["run_id"]; });
    if (run == m_runs.end()) {
        return error(404, "RESOURCE_DOES_NOT_EXIST", "Run not found");
    }
    run->status = body.value("status", run->status);
    run->end_time = body.value("end_time", int64_t{0});
    return Answer{200, {{"run_info", run_info(*run)}}};
}

MlflowTestServer::Answer MlflowTestServer::get_run(const RecordedRequest& request) {
    const auto id = query_value(request.query, "run_id");
    auto run = std::find_if(m_runs.begin(), m_runs.end(),
                            [&](const FakeRun& r) { return r.run_id == id; });
    if (run == m_runs.end()) {
        return error(404, "RESOURCE_DOES_NOT_EXIST", "Run not found");
    }
    return Answer{200, {{"run", {{"info", run_info(*run)}, {"data", json::object()}}}}};
}

}  // namespace trainer_test
