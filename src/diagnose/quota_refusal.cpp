#include "diagnose/quota_refusal.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>
#include <string_view>

#include "util/text.h"

namespace kftrain::diagnose {
namespace {

// The longest message read, and the most resources one refusal names: an event's message is
// at most 1 KiB as the API server stores it, and a quota has a few dozen resources at most.
constexpr size_t k_max_message = 4096;
constexpr size_t k_max_resources = 32;

// The event recorder's prefix of a message that stands for several similar ones.
constexpr std::string_view k_combined = "(combined from similar events): ";
constexpr std::string_view k_error_creating = "Error creating: ";
constexpr std::string_view k_exceeded = "exceeded quota: ";
constexpr std::string_view k_failed = "failed quota: ";

bool starts_with(std::string_view text, std::string_view prefix) {
    return text.substr(0, prefix.size()) == prefix;
}

// A Kubernetes object name (a DNS subdomain's characters), at most 253 bytes.
bool is_name(std::string_view text) {
    return !text.empty() && text.size() <= 253 && std::all_of(text.begin(), text.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '.';
    });
}

// A resource name (requests.nvidia.com/gpu, count/pods) or a quantity (400m, 2Gi, 1e3).
bool is_word(std::string_view text) {
    return !text.empty() && text.size() <= 253 && std::all_of(text.begin(), text.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
               c == '-' || c == '.' || c == '/' || c == '_' || c == '+';
    });
}

// "requests.cpu=400m,limits.memory=2Gi" as resource -> amount, in order; nullopt unless every
// pair is a resource and a quantity.
std::optional<std::vector<std::pair<std::string, std::string>>> pairs(const std::string& list) {
    std::vector<std::pair<std::string, std::string>> out;
    for (const std::string& item : util::split(list, ',')) {
        const size_t eq = item.find('=');
        if (eq == std::string::npos || out.size() >= k_max_resources) {
            return std::nullopt;
        }
        std::string key = item.substr(0, eq);
        std::string value = item.substr(eq + 1);
        if (!is_word(key) || !is_word(value)) {
            return std::nullopt;
        }
        out.emplace_back(std::move(key), std::move(value));
    }
    return out;
}

// The three lists of "requested: A, used: B, limited: C", each resource in all three; empty
// when they cannot be read so.
std::vector<QuotaAmount> amounts_of(const std::string& rest) {
    const size_t used_at = rest.find(", used: ");
    const size_t limited_at = rest.find(", limited: ");
    if (!starts_with(rest, "requested: ") || used_at == std::string::npos ||
        limited_at == std::string::npos || limited_at < used_at) {
        return {};
    }
    const size_t req_from = std::string_view("requested: ").size();
    auto requested = pairs(rest.substr(req_from, used_at - req_from));
    auto used = pairs(rest.substr(used_at + 8, limited_at - used_at - 8));
    auto limited = pairs(rest.substr(limited_at + 11));
    if (!requested || !used || !limited) {
        return {};
    }
    std::map<std::string, std::string> used_of(used->begin(), used->end());
    std::map<std::string, std::string> limited_of(limited->begin(), limited->end());
    std::vector<QuotaAmount> amounts;
    for (const auto& [resource, asked] : *requested) {
        if (used_of.count(resource) == 0 || limited_of.count(resource) == 0) {
            return {};
        }
        amounts.push_back({resource, asked, used_of[resource], limited_of[resource]});
    }
    return amounts;
}

// "limits.cpu,limits.memory", or newer servers' "limits.cpu for: c1; limits.memory for: c1".
std::vector<std::string> must_specify_of(const std::string& text) {
    std::vector<std::string> names;
    for (const std::string& part : util::split(text, ';')) {
        const std::string names_part = part.substr(0, part.find(" for: "));
        for (const std::string& name : util::split(names_part, ',')) {
            if (!is_word(name) || names.size() >= k_max_resources) {
                return {};
            }
            if (std::find(names.begin(), names.end(), name) == names.end()) {
                names.push_back(name);
            }
        }
    }
    return names;
}

// The refused pod's name out of `pods "NAME" is forbidden: `, and the text after it.
std::optional<std::pair<std::string, std::string>> forbidden_pod(const std::string& text) {
    const std::string lead = "pods \"";
    if (!starts_with(text, lead)) {
        return std::nullopt;
    }
    const size_t quote = text.find('"', lead.size());
    const std::string tail = "\" is forbidden: ";
    if (quote == std::string::npos || text.compare(quote, tail.size(), tail) != 0) {
        return std::nullopt;
    }
    std::string pod = text.substr(lead.size(), quote - lead.size());
    if (!pod.empty() && !is_name(pod)) {  // a generateName pod may be refused unnamed
        return std::nullopt;
    }
    return std::make_pair(std::move(pod), text.substr(quote + tail.size()));
}

// Whether an event's object is the job, or one of its JobSet's Jobs: "<job>-<replicated
// job>-<index>" ("mnist-node-0"), not another job whose name starts alike.
bool about_job(const std::string& object, const std::string& job) {
    if (object == job) {
        return true;
    }
    if (!starts_with(object, job + "-")) {
        return false;
    }
    const std::string rest = object.substr(job.size() + 1);
    const size_t dash = rest.rfind('-');
    return dash != std::string::npos && dash > 0 && dash + 1 < rest.size() &&
           std::all_of(rest.begin() + static_cast<long>(dash) + 1, rest.end(),
                       [](char c) { return c >= '0' && c <= '9'; });
}

}  // namespace

std::optional<QuotaRefusal> parse_quota_refusal(const std::string& message) {
    std::string text = util::trim(message.substr(0, k_max_message));
    for (std::string_view prefix : {k_combined, k_error_creating}) {
        if (starts_with(text, prefix)) {
            text = text.substr(prefix.size());
        }
    }
    auto pod = forbidden_pod(text);
    if (!pod) {
        return std::nullopt;
    }
    QuotaRefusal refusal;
    refusal.pod = pod->first;
    const std::string& error = pod->second;
    if (starts_with(error, k_exceeded)) {
        const std::string rest = error.substr(k_exceeded.size());
        const size_t comma = rest.find(", ");
        if (comma == std::string::npos) {
            return std::nullopt;  // cut inside the quota's name, perhaps
        }
        refusal.quota = rest.substr(0, comma);
        refusal.amounts = amounts_of(rest.substr(comma + 2));
    } else if (starts_with(error, k_failed)) {
        const std::string rest = error.substr(k_failed.size());
        const size_t colon = rest.find(": must specify ");
        if (colon == std::string::npos) {
            return std::nullopt;
        }
        refusal.quota = rest.substr(0, colon);
        refusal.must_specify = must_specify_of(rest.substr(colon + 15));
    } else {
        return std::nullopt;
    }
    if (!is_name(refusal.quota)) {
        return std::nullopt;
    }
    return refusal;
}

std::optional<QuotaFinding> find_quota_refusal(const JobEvidence& job) {
    QuotaFinding found;
    found.wanted = std::max(job.replicas_wanted, 0);
    found.created = static_cast<int>(job.replicas.size());
    found.running = static_cast<int>(
        std::count_if(job.replicas.begin(), job.replicas.end(),
                      [](const ReplicaEvidence& r) { return r.state == "Running"; }));
    const bool missing = found.wanted > 0 ? found.created < found.wanted : found.created == 0;
    if (!missing || job.name.empty()) {
        return std::nullopt;
    }
    for (auto event = job.events.rbegin(); event != job.events.rend(); ++event) {  // newest first
        if (!event->warning || !about_job(event->object, job.name) ||
            (event->reason != "FailedCreatePod" && event->reason != "FailedCreate")) {
            continue;
        }
        if (auto refusal = parse_quota_refusal(event->message)) {
            found.refusal = std::move(*refusal);
            found.object = event->object;
            found.reason = event->reason;
            found.message = event->message;
            found.time = event->time;
            return found;
        }
    }
    return std::nullopt;
}

std::string quota_why(const QuotaFinding& found) {
    const int missing = found.wanted - found.created;
    std::string why = found.wanted > 0
                          ? fmt::format("quota {} refused {} of {} pods", found.refusal.quota,
                                        missing, found.wanted)
                          : fmt::format("quota {} refused the job's pods", found.refusal.quota);
    if (!found.refusal.amounts.empty()) {
        why += ": " + describe_amounts(found.refusal.amounts);
    } else if (!found.refusal.must_specify.empty()) {
        why += fmt::format(": every container must specify {}",
                           fmt::join(found.refusal.must_specify, ", "));
    }
    if (found.wanted > 0) {
        why += fmt::format(" ({} running, {} not created)", found.running, missing);
    }
    return why;
}

std::string describe_amounts(const std::vector<QuotaAmount>& amounts) {
    std::vector<std::string> parts;
    for (const QuotaAmount& a : amounts) {
        parts.push_back(
            fmt::format("{} asked {}, used {} of {}", a.resource, a.requested, a.used, a.limited));
    }
    return fmt::format("{}", fmt::join(parts, "; "));
}

}  // namespace kftrain::diagnose
