#pragma once

#include <array>

#include "util/json_text.h"

namespace kftrain::mcp {

// The Model Context Protocol as `kftrain mcp` speaks it: JSON-RPC 2.0, one message a line on
// standard input and output (the stdio transport). Every name the wire carries is spelled here
// once; docs/agents.md describes the server to its users.

// Protocol versions the server speaks, newest first. The client's requested version is echoed
// when it is one of these; otherwise the server offers the first.
inline constexpr std::array<const char*, 4> k_protocol_versions = {"2025-11-25", "2025-06-18",
                                                                   "2025-03-26", "2024-11-05"};

inline constexpr const char* k_jsonrpc_version = "2.0";
inline constexpr const char* k_server_name = "kftrain";

// Methods.
namespace method {
inline constexpr const char* k_initialize = "initialize";
inline constexpr const char* k_initialized = "notifications/initialized";
inline constexpr const char* k_ping = "ping";
inline constexpr const char* k_tools_list = "tools/list";
inline constexpr const char* k_tools_call = "tools/call";
inline constexpr const char* k_progress = "notifications/progress";
inline constexpr const char* k_cancelled = "notifications/cancelled";
}  // namespace method

// JSON-RPC 2.0 error codes.
namespace error {
inline constexpr int k_parse_error = -32700;
inline constexpr int k_invalid_request = -32600;
inline constexpr int k_method_not_found = -32601;
inline constexpr int k_invalid_params = -32602;
inline constexpr int k_internal_error = -32603;
}  // namespace error

// Limits on what the server reads: a longer line is answered with a parse error and skipped,
// deeper nesting is a parse error before any JSON is built.
inline constexpr size_t k_max_message_bytes = size_t{4} << 20;
inline constexpr int k_max_nesting = util::k_max_json_depth;

// Tools listed per tools/list page.
inline constexpr size_t k_tools_page_size = 50;

}  // namespace kftrain::mcp
