#include "cli/context.h"

#include <fmt/format.h>

#include "manifest/validate.h"
#include "util/text.h"
#include "util/time_text.h"

namespace kftrain::cli {

util::Status check_global_options(const GlobalOptions& global) {
    if (!global.request_timeout.empty()) {
        auto parsed = util::parse_duration_flag("--request-timeout", global.request_timeout,
                                                util::k_request_timeout);
        if (!parsed) {
            return parsed.error_value();
        }
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
    if (global.local && global.from_history) {
        return util::error(
            "--from-history reads the records of cluster jobs; local jobs keep their state "
            "already: give one or the other");
    }
    return util::ok_status();
}

}  // namespace kftrain::cli
