#include "backend/local/state/replica_exits.h"

#include <nlohmann/json.hpp>

#include "backend/local/state/state_dir.h"
#include "util/files.h"
#include "util/json_text.h"

namespace kftrain::backend::local {

util::Status record_replica_exit(const std::string& job, const std::string& replica, int code) {
    nlohmann::json doc = nlohmann::json::object();
    for (const auto& [name, exit_code] : read_replica_exits(job)) {
        doc[name] = exit_code;
    }
    doc[replica] = code;
    return util::write_file_atomic(replica_exits_path(job), util::json_text(doc));
}

ReplicaExits read_replica_exits(const std::string& job) {
    ReplicaExits out;
    auto text = state::read_state_file(replica_exits_path(job));
    if (!text) {
        return out;
    }
    auto doc = util::parse_untrusted_json(*text);
    if (!doc.is_object()) {
        return out;
    }
    for (const auto& [name, value] : doc.items()) {
        if (auto code = util::json_number<int>(value)) {
            out[name] = *code;
        }
    }
    return out;
}

}  // namespace kftrain::backend::local
