#include "cli/view/usage/top_view.h"

#include <fmt/format.h>

#include <cmath>
#include <set>

#include "usage/pod_resources.h"
#include "util/text.h"
#include "util/text_table.h"

namespace kftrain::cli::view {
namespace {

using nlohmann::ordered_json;

// A figure as JSON: a whole number as an integer (bytes, devices), else as it is.
ordered_json figure_json(double value) {
    if (std::floor(value) == value && std::fabs(value) < 9e15) {
        return ordered_json(static_cast<long long>(value));
    }
    return ordered_json(value);
}

ordered_json number_or_null(std::optional<double> value) {
    return value ? figure_json(*value) : ordered_json(nullptr);
}

// "used" against "request/limit": the figures of one resource.
ordered_json usage_figures(std::optional<double> used, std::optional<double> request,
                           std::optional<double> limit) {
    return ordered_json{{"used", number_or_null(used)},
                        {"request", number_or_null(request)},
                        {"limit", number_or_null(limit)}};
}

std::string format_amount(const std::string& resource, std::optional<double> amount) {
    if (resource == "cpu") {
        return format_cores(amount);
    }
    if (resource == "memory") {
        return format_bytes(amount);
    }
    return amount ? fmt::format("{:g}", *amount) : "-";
}

// "used/allocatable" of one node's resource.
std::string allocation_cell(const usage::NodeAllocation& node, const std::string& resource) {
    const auto allocatable = usage::amount_of(node.allocatable, resource);
    std::optional<double> allocated;
    if (node.allocated) {
        allocated = usage::amount_of(*node.allocated, resource).value_or(0.0);
    }
    if (!allocatable && (!allocated || *allocated == 0)) {
        return "-";
    }
    std::string cell = format_amount(resource, allocated) + "/" +
                       format_amount(resource, allocatable.value_or(0.0));
    if (allocated && allocatable && *allocatable > 0) {
        cell += fmt::format(" ({:.0f}%)", 100.0 * *allocated / *allocatable);
    }
    return cell;
}

std::string request_limit(const std::string& resource, std::optional<double> request,
                          std::optional<double> limit) {
    return format_amount(resource, request) + "/" + format_amount(resource, limit);
}

}  // namespace

std::string format_cores(std::optional<double> cores) {
    if (!cores) {
        return "-";
    }
    const double millicores = std::round(*cores * 1000);
    if (millicores >= 1000 && std::fmod(millicores, 1000) == 0) {
        return fmt::format("{:.0f}", millicores / 1000);  // whole cores, as a request says them
    }
    return fmt::format("{:.0f}m", millicores);
}

std::string format_bytes(std::optional<double> bytes) {
    if (!bytes) {
        return "-";
    }
    constexpr double k_ki = 1024.0;
    constexpr double k_gi = k_ki * k_ki * k_ki;
    if (*bytes >= k_gi && std::fmod(*bytes, k_gi) == 0) {
        return fmt::format("{:.0f}Gi", *bytes / k_gi);
    }
    if (*bytes >= k_gi) {
        return fmt::format("{:.1f}Gi", *bytes / k_gi);
    }
    if (*bytes >= k_ki * k_ki) {
        return fmt::format("{:.0f}Mi", *bytes / (k_ki * k_ki));
    }
    if (*bytes >= k_ki) {
        return fmt::format("{:.0f}Ki", *bytes / k_ki);
    }
    return fmt::format("{:.0f}", *bytes);
}

ordered_json job_usage_data(const job::JobUsage& usage) {
    ordered_json replicas = ordered_json::array();
    for (const auto& r : usage.replicas) {
        replicas.push_back(
            {{"name", r.name},
             {"pod", r.pod},
             {"node", r.node},
             {"pid", r.pid},
             {"state", r.state},
             {"restarts", r.restarts},
             {"cpu", usage_figures(r.cpu_cores, r.cpu_request, r.cpu_limit)},
             {"memory", usage_figures(r.memory_bytes, r.memory_request, r.memory_limit)},
             {"oomRisk", usage::oom_risk(r.memory_bytes, r.memory_limit)},
             {"gpus", figure_json(r.gpus)}});
    }
    return ordered_json{{"name", usage.name},   {"namespace", usage.namespace_},
                        {"kind", usage.kind},   {"source", usage.source},
                        {"replicas", replicas}, {"warnings", usage.warnings}};
}

void print_job_usage(std::ostream& out, const job::JobUsage& usage, OutputFormat format) {
    if (format == OutputFormat::Json || format == OutputFormat::Yaml) {
        print_data(out, job_usage_data(usage), format);
        return;
    }
    bool here = usage.source == "/proc";
    util::TextTable table({"REPLICA", here ? "PID" : "NODE", "CPU", "CPU REQ/LIM", "MEMORY",
                           "MEM REQ/LIM", "RESTARTS", "GPUS"});
    bool marked = false;
    for (const auto& r : usage.replicas) {
        std::string memory = format_bytes(r.memory_bytes);
        if (usage::oom_risk(r.memory_bytes, r.memory_limit)) {
            memory += " !";
            marked = true;
        }
        std::string where =
            here ? (r.pid > 0 ? std::to_string(r.pid) : "-") : (r.node.empty() ? "-" : r.node);
        table.add_row({r.name, where, format_cores(r.cpu_cores),
                       request_limit("cpu", r.cpu_request, r.cpu_limit), memory,
                       request_limit("memory", r.memory_request, r.memory_limit),
                       std::to_string(r.restarts), fmt::format("{:g}", r.gpus)});
    }
    table.print(out);
    if (marked) {
        out << k_oom_risk_note << "\n";
    }
}

ordered_json node_usage_data(const job::NodeUsageList& nodes) {
    ordered_json items = ordered_json::array();
    for (const auto& node : nodes.nodes) {
        std::set<std::string> names;
        for (const auto& [name, amount] : node.allocatable) {
            names.insert(name);
        }
        if (node.allocated) {
            for (const auto& [name, amount] : *node.allocated) {
                if (usage::shown_resource(name)) {
                    names.insert(name);
                }
            }
        }
        ordered_json resources = ordered_json::object();
        for (const std::string& name : names) {
            resources[name] = {
                {"allocatable",
                 figure_json(usage::amount_of(node.allocatable, name).value_or(0.0))},
                {"allocated",
                 node.allocated ? figure_json(usage::amount_of(*node.allocated, name).value_or(0.0))
                                : ordered_json(nullptr)}};
        }
        items.push_back({{"name", node.name},
                         {"gpuProduct", node.gpu_product},
                         {"pods", node.allocated ? ordered_json(node.pods) : ordered_json(nullptr)},
                         {"resources", resources}});
    }
    return ordered_json{{"nodes", items}, {"warnings", nodes.warnings}};
}

void print_node_usage(std::ostream& out, const job::NodeUsageList& nodes, OutputFormat format) {
    if (format == OutputFormat::Json || format == OutputFormat::Yaml) {
        print_data(out, node_usage_data(nodes), format);
        return;
    }
    std::set<std::string> extended;  // every other extended resource a node advertises
    for (const auto& node : nodes.nodes) {
        for (const auto& [name, amount] : node.allocatable) {
            if (name != "cpu" && name != "memory" && name != usage::k_gpu_resource) {
                extended.insert(name);
            }
        }
    }
    std::vector<std::string> headers = {"NODE", "CPU", "MEMORY", "GPU", "GPU PRODUCT"};
    for (const auto& name : extended) {
        headers.push_back(util::to_upper(name));
    }
    util::TextTable table(headers);
    for (const auto& node : nodes.nodes) {
        std::vector<std::string> row = {node.name, allocation_cell(node, "cpu"),
                                        allocation_cell(node, "memory"),
                                        allocation_cell(node, usage::k_gpu_resource),
                                        node.gpu_product.empty() ? "-" : node.gpu_product};
        for (const auto& name : extended) {
            row.push_back(allocation_cell(node, name));
        }
        table.add_row(row);
    }
    table.print(out);
    out << "(allocated/allocatable: the requests of the pods on the node, as kubectl describe "
           "node counts them)\n";
}

void print_usage_warnings(std::ostream& err, const std::vector<std::string>& warnings) {
    for (const auto& warning : warnings) {
        err << "kftrain: warning: " << util::escape_line(warning) << "\n";
    }
}

}  // namespace kftrain::cli::view
