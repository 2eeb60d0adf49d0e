#include "usage/node_allocation.h"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "manifest/k8s/quantity.h"
#include "util/json_fields.h"
#include "util/json_text.h"

namespace kftrain::usage {
namespace {

using nlohmann::json;
using util::member;
using util::string_at;

const json k_no_resources = json::object();

util::Result<json> parse_k8s_items(const std::string& text, const char* what) {
    json parsed = util::parse_untrusted_json(text);
    if (parsed.is_discarded() || !parsed.is_object() || !member(parsed, "items").is_array()) {
        return util::error(std::string("not a list of ") + what);
    }
    return parsed;
}

}  // namespace

bool shown_resource(const std::string& name) {
    if (name == "cpu" || name == "memory") {
        return true;
    }
    const auto slash = name.find('/');
    if (slash == std::string::npos) {
        return false;  // pods, ephemeral-storage, hugepages-2Mi
    }
    const std::string domain = name.substr(0, slash);
    return domain != "kubernetes.io" &&
           (domain.size() < 14 || domain.compare(domain.size() - 14, 14, ".kubernetes.io") != 0);
}

util::Result<std::vector<NodeAllocation>> read_nodes(const std::string& json_text) {
    auto parsed = parse_k8s_items(json_text, "nodes");
    if (!parsed) {
        return parsed.error_value();
    }
    std::vector<NodeAllocation> nodes;
    for (const json& item : member(*parsed, "items")) {
        NodeAllocation node;
        node.name = string_at(member(item, "metadata"), "name");
        node.gpu_product =
            string_at(member(member(item, "metadata"), "labels"), k_gpu_product_label);
        const json& allocatable = member(member(item, "status"), "allocatable");
        const json& resources = allocatable.is_object() ? allocatable : k_no_resources;
        for (const auto& [name, value] : resources.items()) {
            if (!shown_resource(name) || !value.is_string()) {
                continue;
            }
            if (auto amount = manifest::parse_quantity(value.get<std::string>())) {
                node.allocatable[name] = *amount;
            }
        }
        nodes.push_back(std::move(node));
    }
    std::sort(nodes.begin(), nodes.end(),
              [](const NodeAllocation& a, const NodeAllocation& b) { return a.name < b.name; });
    return nodes;
}

util::Status add_pod_requests(std::vector<NodeAllocation>& nodes, const std::string& json_text) {
    auto parsed = parse_k8s_items(json_text, "pods");
    if (!parsed) {
        return parsed.error_value();
    }
    for (NodeAllocation& node : nodes) {
        node.allocated = Amounts{};
        node.pods = 0;
    }
    for (const json& pod : member(*parsed, "items")) {
        if (!pod_holds_resources(pod)) {
            continue;
        }
        const std::string on = string_at(member(pod, "spec"), "nodeName");
        auto node = std::find_if(nodes.begin(), nodes.end(),
                                 [&](const NodeAllocation& n) { return n.name == on; });
        if (node == nodes.end()) {
            continue;
        }
        for (const auto& [name, amount] : pod_resources(pod).requests) {
            (*node->allocated)[name] += amount;
        }
        ++node->pods;
    }
    return util::ok_status();
}

}  // namespace kftrain::usage
