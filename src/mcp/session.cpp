#include "mcp/session.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>

#include "mcp/protocol.h"
#include "util/json_text.h"

namespace kftrain::mcp {
namespace {

using json = nlohmann::json;

Dispatch reply(json message) {
    Dispatch d;
    d.reply = std::move(message);
    return d;
}

Dispatch fail(const json& id, int code, const std::string& message) {
    return reply(error_message(id, code, message));
}

json initialize_result(const json& params, const ServerDescription& server) {
    json requested = params.is_object() ? params.value("protocolVersion", json()) : json();
    return {{"protocolVersion", negotiate_version(requested)},
            {"capabilities", {{"tools", {{"listChanged", false}}}}},
            {"serverInfo",
             {{"name", k_server_name}, {"title", "kftrain"}, {"version", server.version}}},
            {"instructions", server.instructions}};
}

// Read a tools/list cursor: the offset of the page, as the previous page's nextCursor gave it.
std::optional<size_t> read_cursor(const json& params) {
    if (!params.is_object() || !params.contains("cursor")) {
        return 0;
    }
    const json& cursor = params["cursor"];
    if (!cursor.is_string()) {
        return std::nullopt;
    }
    const std::string text = cursor.get<std::string>();
    size_t offset = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), offset);
    if (ec != std::errc() || end != text.data() + text.size()) {
        return std::nullopt;
    }
    return offset;
}

Dispatch list_tools(const Incoming& message, const std::vector<ToolDef>& tools) {
    std::optional<size_t> offset = read_cursor(message.params);
    if (!offset || *offset > tools.size()) {
        return fail(message.id, error::k_invalid_params, "tools/list: invalid cursor");
    }
    json page = json::array();
    size_t end = std::min(tools.size(), *offset + k_tools_page_size);
    for (size_t i = *offset; i < end; ++i) {
        page.push_back(tools[i].to_json());
    }
    json result = {{"tools", page}};
    if (end < tools.size()) {
        result["nextCursor"] = std::to_string(end);
    }
    return reply(result_message(message.id, result));
}

Dispatch call_tool(const Incoming& message, const std::vector<ToolDef>& tools) {
    const json& params = message.params;
    if (!params.is_object() || !params.contains("name") || !params["name"].is_string()) {
        return fail(message.id, error::k_invalid_params,
                    "tools/call: params must be an object with the tool's \"name\"");
    }
    const std::string name = params["name"].get<std::string>();
    if (find_tool(tools, name) == nullptr) {
        return fail(message.id, error::k_invalid_params, fmt::format("unknown tool: {}", name));
    }
    json arguments = params.value("arguments", json::object());
    if (arguments.is_null()) {
        arguments = json::object();
    }
    if (!arguments.is_object()) {
        return fail(message.id, error::k_invalid_params,
                    "tools/call: \"arguments\" must be an object");
    }
    ToolCall call{message.id, name, std::move(arguments), std::nullopt};
    auto meta = params.find("_meta");
    if (meta != params.end() && meta->is_object() && meta->contains("progressToken")) {
        const json& token = (*meta)["progressToken"];
        if (token.is_string() || token.is_number_integer()) {
            call.progress_token = token;
        }
    }
    Dispatch d;
    d.call = std::move(call);
    return d;
}

Dispatch notification(const Incoming& message) {
    Dispatch d;
    if (message.method == method::k_cancelled && message.params.is_object()) {
        auto id = message.params.find("requestId");
        if (id != message.params.end()) {
            d.cancel_id = *id;
        }
    }
    return d;  // initialized, cancelled and any unknown notification: nothing to answer
}

}  // namespace

json tool_result(const json& structured) {
    return {{"content", {{{"type", "text"}, {"text", util::json_text(structured)}}}},
            {"structuredContent", structured},
            {"isError", false}};
}

json tool_error(const std::string& message) {
    return {{"content", {{{"type", "text"}, {"text", message}}}}, {"isError", true}};
}

std::string negotiate_version(const json& requested) {
    if (requested.is_string()) {
        const std::string version = requested.get<std::string>();
        for (const char* spoken : k_protocol_versions) {
            if (version == spoken) {
                return version;
            }
        }
    }
    return k_protocol_versions.front();
}

Dispatch dispatch(const Incoming& message, const ServerDescription& server,
                  const std::vector<ToolDef>& tools) {
    switch (message.kind) {
        case Incoming::Kind::Invalid:
            return fail(message.id, message.error_code, message.error);
        case Incoming::Kind::Response:
            return {};  // the server sends no requests: a response answers nothing
        case Incoming::Kind::Notification:
            return notification(message);
        case Incoming::Kind::Request:
            break;
    }
    if (message.params.is_array()) {
        return fail(message.id, error::k_invalid_params,
                    fmt::format("{}: params must be an object", message.method));
    }
    if (message.method == method::k_initialize) {
        return reply(result_message(message.id, initialize_result(message.params, server)));
    }
    if (message.method == method::k_ping) {
        return reply(result_message(message.id, json::object()));
    }
    if (message.method == method::k_tools_list) {
        return list_tools(message, tools);
    }
    if (message.method == method::k_tools_call) {
        return call_tool(message, tools);
    }
    return fail(message.id, error::k_method_not_found,
                fmt::format("method not found: {}", message.method));
}

}  // namespace kftrain::mcp
