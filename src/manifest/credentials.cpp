#include "manifest/credentials.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <sstream>

#include "manifest/k8s/checks.h"
#include "manifest/render/template_values.h"
#include "util/redact.h"

namespace kftrain::manifest {
namespace {

// Whether a variable name has a word (between '_', '-' or '.') that names a credential.
bool names_credential(const std::string& name) {
    std::string upper = name;
    std::transform(upper.begin(), upper.end(), upper.begin(),
                   [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
    std::replace_if(
        upper.begin(), upper.end(), [](char c) { return c == '-' || c == '.'; }, '_');
    std::istringstream words(upper);
    std::string word;
    while (std::getline(words, word, '_')) {
        if (word == "PASSWORD" || word == "TOKEN" || word == "SECRET" || word == "KEY") {
            return true;
        }
    }
    return false;
}

}  // namespace

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
        } else if (names_credential(name)) {
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
