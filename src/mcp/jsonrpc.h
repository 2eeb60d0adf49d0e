#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace kftrain::mcp {

// One line a client sent, read as a JSON-RPC 2.0 message.
struct Incoming {
    enum class Kind { Request, Notification, Response, Invalid };
    Kind kind = Kind::Invalid;
    nlohmann::json id;      // a request's id (string or integer); for Invalid, the id when readable
    std::string method;     // requests and notifications
    nlohmann::json params;  // an object, or null when the message has none
    int error_code = 0;     // Invalid: the JSON-RPC error code to answer with
    std::string error;      // Invalid: what is wrong, for the error's message
};

// Read one line as a JSON-RPC 2.0 message. Not JSON, invalid UTF-8 or nesting deeper than
// k_max_nesting: a parse error. A batch (an array), a missing or wrong "jsonrpc", a method that
// is not a string, an id that is null, fractional or neither string nor integer, or params that
// are neither object nor array: an invalid request.
Incoming parse_message(std::string_view line);

// Return the response carrying result for the request id.
nlohmann::json result_message(const nlohmann::json& id, nlohmann::json result);

// Return the error response for the request id (null when it could not be read).
nlohmann::json error_message(const nlohmann::json& id, int code, const std::string& message);

// Return a notification: no id, no response expected.
nlohmann::json notification_message(const std::string& method, nlohmann::json params);

// Write a message as one line with its newline: compact JSON, invalid UTF-8 in any string
// replaced by U+FFFD, so no message can break the framing or the writer.
std::string to_line(const nlohmann::json& message);

}  // namespace kftrain::mcp
