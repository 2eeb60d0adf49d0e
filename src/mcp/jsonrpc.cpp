#include "mcp/jsonrpc.h"

#include <fmt/format.h>

#include "mcp/protocol.h"
#include "util/json_text.h"

namespace kftrain::mcp {
namespace {

Incoming invalid(int code, std::string what, nlohmann::json id = nullptr) {
    Incoming message;
    message.error_code = code;
    message.error = std::move(what);
    message.id = std::move(id);
    return message;
}

bool valid_id(const nlohmann::json& id) {
    return id.is_string() || id.is_number_integer() || id.is_number_unsigned();
}

}  // namespace

Incoming parse_message(std::string_view line) {
    if (util::json_nests_deeper_than(line, k_max_nesting)) {
        return invalid(error::k_parse_error,
                       fmt::format("message nests deeper than {} levels", k_max_nesting));
    }
    nlohmann::json doc = nlohmann::json::parse(line, nullptr, false);
    if (doc.is_discarded()) {
        return invalid(error::k_parse_error, "not a JSON value (or not valid UTF-8)");
    }
    if (doc.is_array()) {
        return invalid(error::k_invalid_request,
                       "a batch (JSON array) is not supported: send one message per line");
    }
    if (!doc.is_object()) {
        return invalid(error::k_invalid_request, "a message must be a JSON object");
    }
    auto id_it = doc.find("id");
    nlohmann::json id = id_it != doc.end() && valid_id(*id_it) ? *id_it : nlohmann::json();
    auto version = doc.find("jsonrpc");
    if (version == doc.end() || *version != k_jsonrpc_version) {
        return invalid(error::k_invalid_request, "\"jsonrpc\" must be \"2.0\"", id);
    }
    auto method = doc.find("method");
    if (method == doc.end()) {
        if (doc.contains("result") || doc.contains("error")) {
            Incoming response;
            response.kind = Incoming::Kind::Response;
            response.id = id;
            return response;
        }
        return invalid(error::k_invalid_request, "no \"method\"", id);
    }
    if (!method->is_string()) {
        return invalid(error::k_invalid_request, "\"method\" must be a string", id);
    }
    if (id_it != doc.end() && !valid_id(*id_it)) {
        return invalid(error::k_invalid_request,
                       "\"id\" must be a string or an integer (not null)");
    }
    auto params = doc.find("params");
    if (params != doc.end() && !params->is_object() && !params->is_array()) {
        return invalid(error::k_invalid_request, "\"params\" must be an object", id);
    }
    Incoming message;
    message.kind = id_it == doc.end() ? Incoming::Kind::Notification : Incoming::Kind::Request;
    message.id = id;
    message.method = method->get<std::string>();
    message.params = params == doc.end() ? nlohmann::json() : std::move(*params);
    return message;
}

nlohmann::json result_message(const nlohmann::json& id, nlohmann::json result) {
    return {{"jsonrpc", k_jsonrpc_version}, {"id", id}, {"result", std::move(result)}};
}

nlohmann::json error_message(const nlohmann::json& id, int code, const std::string& message) {
    return {{"jsonrpc", k_jsonrpc_version},
            {"id", id},
            {"error", {{"code", code}, {"message", message}}}};
}

nlohmann::json notification_message(const std::string& method, nlohmann::json params) {
    return {{"jsonrpc", k_jsonrpc_version}, {"method", method}, {"params", std::move(params)}};
}

std::string to_line(const nlohmann::json& message) {
    return util::json_text(message) + "\n";
}

}  // namespace kftrain::mcp
