// What a measured program's replicas used, in estimate's table and JSON (docs/estimate.md,
// "Memory and CPU").
#include <fmt/format.h>

#include <cmath>

#include "estimate/format.h"
#include "estimate/program/sizing.h"
#include "manifest/k8s/quantity.h"
#include "util/text.h"
#include "util/text_table.h"

namespace kftrain::estimate {
namespace {

using OrderedJson = nlohmann::ordered_json;

std::string memory_cell(const std::optional<double>& bytes) {
    return bytes ? manifest::quantity_text("memory", *bytes) : "-";
}

std::string cpu_cell(const std::optional<double>& cores) {
    return cores ? manifest::quantity_text("cpu", *cores) : "-";
}

OrderedJson whole(const std::optional<double>& bytes) {
    return bytes ? OrderedJson(std::llround(*bytes)) : OrderedJson(nullptr);
}

bool anything_read(const ProgramProfile& program) {
    for (const SizeMeasurement& size : program.sizes) {
        for (const ReplicaUse& use : size.use) {
            if (use.peak_memory_bytes || use.cpu_cores) {
                return true;
            }
        }
    }
    return false;
}

}  // namespace

std::string use_table(const ProgramProfile& program) {
    if (!anything_read(program)) {
        return "";
    }
    util::TextTable rows({"REPLICAS", "REPLICA", "PEAK MEMORY", "CPU", "GPU MEMORY", ""});
    for (const SizeMeasurement& size : program.sizes) {
        for (const ReplicaUse& use : size.use) {
            rows.add_row({std::to_string(size.replicas), use.replica,
                          memory_cell(use.peak_memory_bytes), cpu_cell(use.cpu_cores),
                          memory_cell(use.peak_device_memory_bytes),
                          use.memory_rising ? "still rising" : ""});
        }
    }
    std::string out = "\nMeasured use (peak memory, mean CPU of each replica):\n" + rows.str();
    if (auto sizing = recommend_sizing(program.sizes)) {
        out += "Recommended: " + sizing_text(*sizing) +
               " (estimate --print-job-file writes it into the job file)\n";
        for (const std::string& warning : sizing->warnings) {
            out += "  warning: " + warning + "\n";
        }
    }
    return out;
}

OrderedJson use_json(const ProgramProfile& program) {
    OrderedJson out;
    out["use"] = OrderedJson::array();
    for (const SizeMeasurement& size : program.sizes) {
        OrderedJson replicas = OrderedJson::array();
        for (const ReplicaUse& use : size.use) {
            replicas.push_back(
                {{"replica", use.replica},
                 {"peak_memory_bytes", whole(use.peak_memory_bytes)},
                 {"cpu_cores", use.cpu_cores ? OrderedJson(*use.cpu_cores) : OrderedJson(nullptr)},
                 {"peak_device_memory_bytes", whole(use.peak_device_memory_bytes)},
                 {"memory_rising", use.memory_rising}});
        }
        out["use"].push_back({{"replicas", size.replicas}, {"replica_use", replicas}});
    }
    out["recommended"] = nullptr;
    if (auto sizing = recommend_sizing(program.sizes)) {
        out["recommended"] = {{"memory", manifest::quantity_text("memory", sizing->memory_bytes)},
                              {"memory_bytes", std::llround(sizing->memory_bytes)},
                              {"cpu", sizing->cpu_cores ? OrderedJson(manifest::quantity_text(
                                                              "cpu", *sizing->cpu_cores))
                                                        : OrderedJson(nullptr)},
                              {"peak_memory_bytes", std::llround(sizing->peak_memory_bytes)},
                              {"peak_replicas", sizing->peak_replicas},
                              {"peak_replica", sizing->peak_replica},
                              {"headroom", k_memory_headroom},
                              {"warnings", sizing->warnings}};
    }
    return out;
}

}  // namespace kftrain::estimate
