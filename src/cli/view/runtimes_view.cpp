#include "cli/view/runtimes_view.h"

#include <nlohmann/json.hpp>

#include "inspect/status_json.h"
#include "util/text_table.h"
#include "util/time_text.h"

namespace kftrain::cli::view {
namespace {

nlohmann::json runtime_to_json(const job::TrainingRuntime& runtime) {
    nlohmann::json out = {{"name", runtime.name},
                          {"kind", runtime.kind},
                          {"framework", runtime.framework},
                          {"numNodes", runtime.num_nodes},
                          {"created", runtime.created}};
    if (!runtime.namespace_.empty()) {
        out["namespace"] = runtime.namespace_;
    }
    return out;
}

std::string age(const std::string& created, std::time_t now) {
    auto at = util::parse_timestamp(created);
    return at ? util::format_duration(std::difftime(now, *at)) : "-";
}

}  // namespace

void print_runtimes(std::ostream& out, const std::vector<job::TrainingRuntime>& runtimes,
                    OutputFormat format, std::time_t now) {
    if (format == OutputFormat::Json || format == OutputFormat::Yaml) {
        nlohmann::json items = nlohmann::json::array();
        for (const auto& runtime : runtimes) {
            items.push_back(runtime_to_json(runtime));
        }
        print_json_items(out, items, format);
        return;
    }
    util::TextTable table({"NAME", "KIND", "FRAMEWORK", "NUM NODES", "AGE"});
    for (const auto& runtime : runtimes) {
        table.add_row({runtime.name, runtime.kind,
                       runtime.framework.empty() ? "-" : runtime.framework,
                       std::to_string(runtime.num_nodes), age(runtime.created, now)});
    }
    table.print(out);
}

}  // namespace kftrain::cli::view
