#include "cost/job_cost.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <vector>

#include "estimate/running_cost.h"
#include "estimate/units.h"

namespace kftrain::cost {
namespace {

std::vector<std::string> lower_words(const std::string& text) {
    std::vector<std::string> words(1);
    for (char c : text) {
        if (std::isalnum(static_cast<unsigned char>(c))) {
            words.back() += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        } else if (!words.back().empty()) {
            words.emplace_back();
        }
    }
    return words;
}

// "2 cores, 4 GiB" or "1 x a100": what one replica of a request is priced for.
std::string describe(const job::ReplicaRequest& request, const std::string& gpu) {
    if (request.gpus > 0) {
        return fmt::format("{} x {}", request.gpus, gpu);
    }
    std::string text = request.cpu_cores <= 0   ? std::string("1 core assumed: no CPU request")
                       : request.cpu_cores == 1 ? std::string("1 core")
                                                : fmt::format("{:g} cores", request.cpu_cores);
    if (request.memory_bytes > 0) {
        text += fmt::format(", {:g} GiB", request.memory_bytes / (1024.0 * 1024.0 * 1024.0));
    }
    return text;
}

struct PricedRequest {
    const job::ReplicaRequest* request;
    double per_replica_hour;
    std::string what;
};

// "9 replicas x $0.08/h each (2 cores, 4 GiB)", or one part per type when they differ.
std::string basis(const std::vector<PricedRequest>& priced, int replicas) {
    const bool same = std::all_of(priced.begin(), priced.end(), [&](const PricedRequest& p) {
        return p.what == priced.front().what;
    });
    if (same) {
        return fmt::format(
            "{} {} x {}/h each ({})", replicas, replicas == 1 ? "replica" : "replicas",
            estimate::format_money(priced.front().per_replica_hour), priced.front().what);
    }
    std::vector<std::string> parts;
    for (const auto& p : priced) {
        parts.push_back(fmt::format("{} {} x {}/h ({})", p.request->replicas, p.request->type,
                                    estimate::format_money(p.per_replica_hour), p.what));
    }
    return fmt::format("{}", fmt::join(parts, " + "));
}

}  // namespace

std::string gpu_type_from_selector(const std::map<std::string, std::string>& node_selector,
                                   const estimate::PriceCatalog& catalog) {
    for (const auto& [key, value] : node_selector) {
        for (const auto& [name, price] : catalog.gpus) {
            if (!price.node.empty() && value == price.node) {
                return name;
            }
        }
        const auto words = lower_words(value);
        for (const auto& [name, price] : catalog.gpus) {
            if (std::find(words.begin(), words.end(), name) != words.end()) {
                return name;
            }
        }
    }
    return "";
}

util::Result<JobCost> job_cost(const job::JobStatus& status, const Pricing& pricing,
                               std::time_t now) {
    if (status.requests.empty()) {
        return util::error("the replicas' resource requests are not known");
    }
    const auto elapsed = job::job_duration(status, now);
    if (!elapsed) {
        return util::error("the job has not started");
    }
    const bool uses_gpus =
        std::any_of(status.requests.begin(), status.requests.end(),
                    [](const job::ReplicaRequest& request) { return request.gpus > 0; });
    std::string gpu = pricing.gpu;
    if (uses_gpus && gpu.empty()) {
        gpu = gpu_type_from_selector(status.node_selector, pricing.catalog);
        if (gpu.empty()) {
            return util::error(
                fmt::format("its GPU type is unknown: name it with --gpu (one of {} in {})",
                            estimate::gpu_type_names(pricing.catalog), pricing.catalog.file));
        }
    }
    JobCost cost;
    cost.currency = pricing.catalog.currency;
    cost.prices = pricing.catalog.file;
    cost.elapsed_s = std::max(*elapsed, 0.0);
    cost.final = job::is_finished(status.phase);
    cost.gpu = uses_gpus ? gpu : "";
    std::vector<PricedRequest> priced;
    for (const auto& request : status.requests) {
        estimate::ReplicaResources resources{request.cpu_cores, request.memory_bytes, request.gpus,
                                             request.gpus > 0 ? gpu : ""};
        const auto price = estimate::replica_hour_price(resources, pricing.catalog);
        if (!price) {
            return util::error(
                request.gpus > 0
                    ? fmt::format("{} has no price for GPU type {}", pricing.catalog.file, gpu)
                    : fmt::format("{} has no CPU prices", pricing.catalog.file));
        }
        priced.push_back({&request, *price, describe(request, gpu)});
        cost.replicas += request.replicas;
        cost.per_hour += *price * request.replicas;
        cost.amount += estimate::cost_so_far(cost.elapsed_s, request.replicas, *price);
    }
    cost.basis = basis(priced, cost.replicas);
    return cost;
}

}  // namespace kftrain::cost
