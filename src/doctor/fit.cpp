#include "doctor/fit.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <tuple>

#include "manifest/k8s/quantity.h"

namespace kftrain::doctor {
namespace {

constexpr double k_gib = 1024.0 * 1024.0 * 1024.0;

std::string cpus_text(double cpus) {
    return fmt::format("{:g} {}", cpus, cpus == 1 ? "CPU" : "CPUs");
}

std::string memory_text(double bytes) {
    return fmt::format("{:.1f} GiB memory", bytes / k_gib);
}

bool tolerated(const Taint& taint, const std::vector<manifest::Toleration>& tolerations) {
    return std::any_of(tolerations.begin(), tolerations.end(), [&](const auto& t) {
        const bool key = t.key.empty() ? t.op == "Exists" : t.key == taint.key;
        const bool value = t.op == "Exists" || t.value == taint.value;
        const bool effect = t.effect.empty() || t.effect == taint.effect;
        return key && value && effect;
    });
}

bool fits(const Node& node, const Request& request) {
    return node.cpu >= request.cpu && node.memory >= request.memory && node.gpus >= request.gpus;
}

}  // namespace

std::string node_capacity(const Node& node) {
    return fmt::format("{}, {}, {} {}", cpus_text(node.cpu), memory_text(node.memory), node.gpus,
                       node.gpus == 1 ? "GPU" : "GPUs");
}

Request replica_request(const manifest::JobSpec& spec) {
    const manifest::Resources& r = spec.resources;
    Request request;
    const std::string cpu = r.cpu.empty() ? r.cpu_limit : r.cpu;
    const std::string memory = r.memory.empty() ? r.memory_limit : r.memory;
    request.cpu = cpu.empty() ? 0 : manifest::parse_quantity(cpu).value_or(0);
    request.memory = memory.empty() ? 0 : manifest::parse_quantity(memory).value_or(0);
    request.gpus = r.gpus;
    return request;
}

std::string nodes_summary(const std::vector<Node>& nodes) {
    if (nodes.empty()) {
        return "no nodes";
    }
    double cpu = 0;
    double memory = 0;
    long long gpus = 0;
    size_t schedulable = 0;
    std::map<std::string, long long> products;
    for (const Node& node : nodes) {
        cpu += node.cpu;
        memory += node.memory;
        gpus += node.gpus;
        schedulable += node.schedulable ? 1 : 0;
        if (node.gpus > 0) {
            products[node.gpu_product.empty() ? "unlabelled" : node.gpu_product] += node.gpus;
        }
    }
    std::string text =
        schedulable == nodes.size()
            ? fmt::format("{} {}", nodes.size(), nodes.size() == 1 ? "node" : "nodes")
            : fmt::format("{} of {} nodes schedulable", schedulable, nodes.size());
    text += fmt::format(": {}, {}, ", cpus_text(cpu), memory_text(memory));
    if (gpus == 0) {
        return text + "no GPUs";
    }
    std::vector<std::string> parts;
    for (const auto& [product, count] : products) {
        parts.push_back(fmt::format("{} x {}", count, product));
    }
    return text + fmt::format("{} GPUs ({})", gpus, fmt::join(parts, ", "));
}

bool accepts(const Node& node, const manifest::JobSpec& spec) {
    if (!node.schedulable) {
        return false;
    }
    for (const auto& [key, value] : spec.node_selector) {
        const auto label = node.labels.find(key);
        if (label == node.labels.end() || label->second != value) {
            return false;
        }
    }
    return std::all_of(node.taints.begin(), node.taints.end(), [&](const Taint& taint) {
        return taint.effect == "PreferNoSchedule" || tolerated(taint, spec.tolerations);
    });
}

Check fit_check(const manifest::JobSpec& spec, const std::vector<Node>& nodes) {
    const Request request = replica_request(spec);
    const std::string asked =
        fmt::format("each replica asks {}, {}, {} {}", cpus_text(request.cpu),
                    memory_text(request.memory), request.gpus, request.gpus == 1 ? "GPU" : "GPUs");
    std::vector<const Node*> open;
    for (const Node& node : nodes) {
        if (accepts(node, spec)) {
            open.push_back(&node);
        }
    }
    if (open.empty()) {
        return check("job", "fits on a node", State::Failed,
                     fmt::format("{}; no node takes its pods (of {}, none is schedulable, labelled "
                                 "for its nodeSelector and tolerated)",
                                 asked,
                                 nodes.size() == 1 ? std::string("1 node")
                                                   : fmt::format("{} nodes", nodes.size())),
                     "kubectl describe nodes (cordoned, NotReady, tainted or labelled otherwise)");
    }
    for (const Node* node : open) {
        if (fits(*node, request)) {
            return check(
                "job", "fits on a node", State::Ok,
                fmt::format("{}; fits on {} ({})", asked, node->name, node_capacity(*node)));
        }
    }
    if (request.gpus > 0 &&
        std::none_of(open.begin(), open.end(), [](const Node* node) { return node->gpus > 0; })) {
        return check("job", "fits on a node", State::Failed,
                     asked + "; no node it may go to has a GPU (nvidia.com/gpu)",
                     "add GPU nodes with NVIDIA's device plugin, or set resources.gpus: 0");
    }
    const Node* largest = *std::max_element(open.begin(), open.end(), [](auto a, auto b) {
        return std::make_tuple(a->gpus, a->cpu, a->memory) <
               std::make_tuple(b->gpus, b->cpu, b->memory);
    });
    return check("job", "fits on a node", State::Failed,
                 fmt::format("{}; fits on no node: largest allocatable is {} ({})", asked,
                             node_capacity(*largest), largest->name),
                 "lower resources in the job file, or add a node that large");
}

}  // namespace kftrain::doctor
