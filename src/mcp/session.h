#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "mcp/jsonrpc.h"
#include "mcp/tool_catalog.h"

namespace kftrain::mcp {

// What the server says of itself in its initialize result.
struct ServerDescription {
    std::string version;       // serverInfo.version: kftrain's
    std::string instructions;  // what the tools do and the limits in force
};

// A tools/call to run: its arguments are the tool's to check.
struct ToolCall {
    nlohmann::json id;
    std::string tool;
    nlohmann::json arguments;                      // an object
    std::optional<nlohmann::json> progress_token;  // params._meta.progressToken
};

// What to do with one message.
struct Dispatch {
    std::optional<nlohmann::json> reply;      // a response to write now
    std::optional<ToolCall> call;             // a call to run in the background
    std::optional<nlohmann::json> cancel_id;  // the request id a notifications/cancelled names
};

// Return the protocol version to answer an initialize with: the requested one when the server
// speaks it, else the newest the server speaks.
std::string negotiate_version(const nlohmann::json& requested);

// Decide what one message asks: initialize, ping and tools/list are answered at once,
// tools/call becomes a ToolCall (an unknown tool or malformed params: -32602), cancellation
// names its request, other notifications and client responses need nothing, and any other
// method is -32601.
Dispatch dispatch(const Incoming& message, const ServerDescription& server,
                  const std::vector<ToolDef>& tools);

// Return a tools/call result holding structured, as structuredContent and as its JSON text.
nlohmann::json tool_result(const nlohmann::json& structured);

// Return a tools/call result that reports a failure on the caller's input or the job's side:
// isError true and kftrain's message as text, for the agent to act on.
nlohmann::json tool_error(const std::string& message);

}  // namespace kftrain::mcp
