#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace kftrain::mcp {

// Return value with every credential kftrain knows how to spot masked as ***: the userinfo and
// secret query parameters of URIs in any string (util::redact_credentials), and the value of
// every {name, value} pair whose name names a credential (util::names_credential), as an env
// entry of a manifest or a status has it, and of every member whose key does ({"api_token":
// "x"}, a metric of that name); not the names of Secrets (secretName, secretKeyRef's key).
// What a tool returns goes through this first.
nlohmann::json mask_credentials(nlohmann::json value);

}  // namespace kftrain::mcp
