#include "backend/kube/owner.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "util/json_text.h"
#include "util/text.h"

namespace kftrain::backend::kube {

Owner job_owner(const job::RenderedJob& job) {
    const manifest::JobKind kind = job.spec.kind;
    return {manifest::kind_resource(kind), manifest::kind_api_version(kind),
            manifest::kind_name(kind), job.spec.name};
}

util::Status add_owner(KubeQueries& queries, const std::string& resource, const std::string& name,
                       const nlohmann::json& owners_now, const Owner& owner) {
    auto uid = queries.run({"get", owner.resource, owner.name, "-o", "jsonpath={.metadata.uid}"},
                           "reading the uid of " + owner.name);
    if (!uid) {
        return uid.error_value();
    }
    const std::string owner_uid = util::trim(*uid);
    nlohmann::json owners = nlohmann::json::array();
    if (owners_now.is_array()) {
        for (const auto& reference : owners_now) {
            if (!reference.is_object() || !reference.contains("uid")) {
                continue;
            }
            if (reference["uid"] == owner_uid) {
                return util::ok_status();
            }
            owners.push_back(reference);
        }
    }
    owners.push_back({{"apiVersion", owner.api_version},
                      {"kind", owner.kind},
                      {"name", owner.name},
                      {"uid", owner_uid},
                      {"blockOwnerDeletion", false}});
    nlohmann::json patch = {{"metadata", {{"ownerReferences", owners}}}};
    auto patched = queries.run(
        {"patch", resource, "--type", "merge", "-p", util::json_text(patch), "--", name},
        fmt::format("making {} the owner of {}/{}", owner.name, resource, name));
    if (!patched) {
        return patched.error_value();
    }
    return util::ok_status();
}

}  // namespace kftrain::backend::kube
