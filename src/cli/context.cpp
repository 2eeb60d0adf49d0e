#include "cli/context.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

#include "manifest/validate.h"
#include "util/text.h"
#include "util/time_text.h"

namespace kftrain::cli {
namespace {

// Return whether kubectl takes text as --request-timeout: 0, whole seconds, or a duration
// with units (1s, 2m, 3h, 500ms).
bool is_request_timeout(const std::string& text) {
    const bool digits = !text.empty() && std::all_of(text.begin(), text.end(), [](char c) {
        return std::isdigit(static_cast<unsigned char>(c)) != 0;
    });
    return digits || (text.find('d') == std::string::npos && util::parse_duration(text));
}

}  // namespace

util::Status check_global_options(const GlobalOptions& global) {
    if (!global.request_timeout.empty() && !is_request_timeout(global.request_timeout)) {
        return util::error(
            fmt::format("--request-timeout: not a duration such as 30s, 2m or 0 (got {})",
                        global.request_timeout));
    }
    if (!global.namespace_.empty() && !manifest::is_dns1123_label(global.namespace_)) {
        return util::error(fmt::format(
            "-n/--namespace: must be a DNS-1123 label: lower-case letters, digits and '-', at "
            "most 63 characters (got {})",
            global.namespace_));
    }
    if (global.local && (!global.context.empty() || !global.kubeconfig.empty())) {
        return util::error(fmt::format(
            "--local runs on this machine, but {} names a cluster: give one or the other",
            global.context.empty() ? "--kubeconfig" : "--context"));
    }
    return util::ok_status();
}

}  // namespace kftrain::cli
