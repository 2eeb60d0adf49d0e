#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace kftrain::mcp {

// Return value with every credential kftrain knows how to spot masked as ***: the userinfo and
// secret query parameters of URIs in any string (util::redact_credentials), and the value of
// every {name, value} pair whose name names a credential (util::names_credential), as an env
// entry of a manifest or a status has it. What a tool returns goes through this first.
nlohmann::json mask_credentials(nlohmann::json value);

// Return text with credentials masked: those of URIs, and the value of every NAME=value or
// --name=value whose name names a credential (HF_TOKEN=..., --password=...); for log lines,
// messages and progress.
std::string mask_text(const std::string& text);

}  // namespace kftrain::mcp
