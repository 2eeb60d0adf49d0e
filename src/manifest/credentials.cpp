#include "manifest/credentials.h"

#include <fmt/format.h>

#include "manifest/k8s/checks.h"
#include "manifest/render/template_values.h"
#include "util/redact.h"

namespace kftrain::manifest {

std::vector<std::string> credential_warnings(const JobSpec& spec) {
    const std::vector<std::pair<std::string, EnvVar>> rendered = job_environment(spec);
    auto secret_ref = [&rendered](const std::string& name) -> const EnvVar* {
        for (const auto& [other, var] : rendered) {
            if (other == name && !var.secret_name.empty()) {
                return &var;
            }
        }
        return nullptr;
    };
    std::vector<std::string> warnings;
    for (const auto& [name, var] : spec.env) {
        if (!var.secret_name.empty() || var.value.empty()) {
            continue;
        }
        const std::string where = locate_map_key(spec.source, "env", name);
        if (const EnvVar* ref = secret_ref(name)) {
            warnings.push_back(fmt::format(
                "{}: a literal value, and mlflow.credentialsSecret also sets {} from Secret {}; "
                "the literal is written into the manifest in plain text: remove it",
                where, name, ref->secret_name));
        } else if (util::redact_credentials(var.value) != var.value) {
            warnings.push_back(fmt::format(
                "{}: holds a URI with credentials, written into the manifest in plain text; "
                "put them in a Secret (kftrain shows the value as {})",
                where, util::redact_credentials(var.value)));
        } else if (util::names_credential(name)) {
            warnings.push_back(fmt::format(
                "{}: looks like a credential but is a literal value, written into the manifest "
                "in plain text; put it in a Secret and use {}: {{secretKeyRef: {{name: ..., key: "
                "...}}}}",
                where, name));
        }
    }
    const std::string& uri = spec.mlflow.tracking_uri;
    if (util::redact_credentials(uri) != uri) {
        warnings.push_back(fmt::format(
            "{}: holds credentials ({}), written into the manifest in plain text; give them "
            "with mlflow.credentialsSecret instead",
            locate_map_key(spec.source, "mlflow", "trackingUri"), util::redact_credentials(uri)));
    }
    return warnings;
}

void print_credential_warnings(const JobSpec& spec, std::ostream& err) {
    for (const auto& warning : credential_warnings(spec)) {
        err << "kftrain: warning: " << warning << "\n";
    }
}

}  // namespace kftrain::manifest
