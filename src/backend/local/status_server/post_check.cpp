#include "backend/local/status_server/post_check.h"

#include <fmt/format.h>

#include <cctype>
#include <cstdint>
#include <limits>
#include <vector>

#include "util/json_text.h"
#include "util/time_text.h"

namespace kftrain::backend::local {
namespace {

using nlohmann::json;

constexpr const char* k_prefix = "/apis/trainer.kubeflow.org/v1alpha1/namespaces/";
constexpr std::size_t k_max_metrics = 256;
constexpr std::size_t k_max_metric_text = 64;
constexpr const char* k_status_field = "status.trainerStatus";

// A body that Go's JSON decoder would not read into the request's struct.
struct InvalidPayload {};

// Split "/apis/.../namespaces/NS/trainjobs/NAME/status" into NS and NAME; false otherwise.
bool parse_status_path(const std::string& path, std::string& ns, std::string& name) {
    const std::string prefix = k_prefix;
    if (path.compare(0, prefix.size(), prefix) != 0) {
        return false;
    }
    std::vector<std::string> parts;
    std::size_t start = prefix.size();
    while (true) {
        const std::size_t slash = path.find('/', start);
        parts.push_back(path.substr(start, slash == std::string::npos ? slash : slash - start));
        if (slash == std::string::npos) {
            break;
        }
        start = slash + 1;
    }
    if (parts.size() != 4 || parts[1] != "trainjobs" || parts[3] != "status" || parts[0].empty() ||
        parts[2].empty()) {
        return false;
    }
    ns = parts[0];
    name = parts[2];
    return true;
}

// The credentials of exactly one "Bearer" credential, scheme in any case; "" otherwise.
std::string bearer_token(const std::string& header) {
    std::vector<std::string> fields;
    std::size_t i = 0;
    while (i < header.size()) {
        while (i < header.size() && (header[i] == ' ' || header[i] == '\t')) {
            ++i;
        }
        const std::size_t start = i;
        while (i < header.size() && header[i] != ' ' && header[i] != '\t') {
            ++i;
        }
        if (i > start) {
            fields.push_back(header.substr(start, i - start));
        }
    }
    if (fields.size() != 2 || fields[0].size() != 6) {
        return "";
    }
    for (std::size_t k = 0; k < 6; ++k) {
        if (std::tolower(static_cast<unsigned char>(fields[0][k])) != "bearer"[k]) {
            return "";
        }
    }
    return fields[1];
}

// An int32 member as Go decodes it: absent or null is none; anything but an integer is invalid.
std::optional<std::int64_t> int32_member(const json& object, const char* key) {
    const auto it = object.find(key);
    if (it == object.end() || it->is_null()) {
        return std::nullopt;
    }
    if (!it->is_number_integer()) {
        throw InvalidPayload{};
    }
    if (it->is_number_unsigned()) {
        if (it->get<std::uint64_t>() > std::numeric_limits<std::int32_t>::max()) {
            throw InvalidPayload{};
        }
        return static_cast<std::int64_t>(it->get<std::uint64_t>());
    }
    const auto value = it->get<std::int64_t>();
    if (value < std::numeric_limits<std::int32_t>::min() ||
        value > std::numeric_limits<std::int32_t>::max()) {
        throw InvalidPayload{};
    }
    return value;
}

// A string member as Go decodes it: absent or null is "", anything but a string is invalid.
std::string string_member(const json& object, const char* key) {
    const auto it = object.find(key);
    if (it == object.end() || it->is_null()) {
        return "";
    }
    if (!it->is_string()) {
        throw InvalidPayload{};
    }
    return it->get<std::string>();
}

// Decode trainerStatus into its canonical form, as the API server would store it (metrics as
// given; the time in whole seconds, UTC); throws InvalidPayload.
json decode_trainer_status(const json& in) {
    if (!in.is_object()) {
        throw InvalidPayload{};
    }
    json out = json::object();
    if (auto percent = int32_member(in, "progressPercentage")) {
        out["progressPercentage"] = *percent;
    }
    if (auto eta = int32_member(in, "estimatedRemainingSeconds")) {
        out["estimatedRemainingSeconds"] = *eta;
    }
    if (const auto it = in.find("metrics"); it != in.end() && !it->is_null()) {
        if (!it->is_array()) {
            throw InvalidPayload{};
        }
        json metrics = json::array();
        for (const json& metric : *it) {
            if (!metric.is_null() && !metric.is_object()) {
                throw InvalidPayload{};
            }
            const json m = metric.is_null() ? json::object() : metric;
            metrics.push_back(
                {{"name", string_member(m, "name")}, {"value", string_member(m, "value")}});
        }
        out["metrics"] = std::move(metrics);
    }
    const std::string updated = string_member(in, "lastUpdatedTime");
    if (!updated.empty()) {
        const auto time = util::parse_timestamp(updated);
        if (!time) {
            throw InvalidPayload{};
        }
        out["lastUpdatedTime"] = util::format_timestamp(*time);
    }
    return out;
}

void check_range(const json& status, const char* key, std::int64_t low,
                 std::optional<std::int64_t> high, std::vector<std::string>& errors) {
    if (!status.contains(key)) {
        return;
    }
    const auto value = status[key].get<std::int64_t>();
    const std::string field = fmt::format("{}.{}", k_status_field, key);
    if (value < low) {
        errors.push_back(fmt::format(
            "{0}: Invalid value: {1}: {0} in body should be greater than or equal to {2}", field,
            value, low));
    } else if (high && value > *high) {
        errors.push_back(
            fmt::format("{0}: Invalid value: {1}: {0} in body should be less than or equal to {2}",
                        field, value, *high));
    }
}

void check_text(const std::string& field, const std::string& value,
                std::vector<std::string>& errors) {
    if (value.empty()) {
        errors.push_back(fmt::format(
            "{0}: Invalid value: \"\": {0} in body should be at least 1 chars long", field));
    } else if (value.size() > k_max_metric_text) {
        errors.push_back(
            fmt::format("{}: Too long: may not be more than {} bytes", field, k_max_metric_text));
    }
}

// The CRD's rules for status.trainerStatus, each broken one as the API server words it.
std::vector<std::string> crd_errors(const json& status) {
    std::vector<std::string> errors;
    check_range(status, "progressPercentage", 0, 100, errors);
    check_range(status, "estimatedRemainingSeconds", 0, std::nullopt, errors);
    if (status.contains("metrics")) {
        const json& metrics = status["metrics"];
        if (metrics.size() > k_max_metrics) {
            errors.push_back(fmt::format("{}.metrics: Too many: {}: must have at most {} items",
                                         k_status_field, metrics.size(), k_max_metrics));
        }
        for (std::size_t i = 0; i < metrics.size(); ++i) {
            for (const char* key : {"name", "value"}) {
                check_text(fmt::format("{}.metrics[{}].{}", k_status_field, i, key),
                           metrics[i][key].get<std::string>(), errors);
            }
        }
    }
    if (!status.contains("lastUpdatedTime")) {
        errors.push_back(fmt::format(
            "{}: Invalid value: \"object\": lastUpdatedTime is required when trainerStatus is "
            "present",
            k_status_field));
    }
    return errors;
}

PostAnswer failure(int code, const std::string& reason, const std::string& message) {
    return {code, failure_status(code, reason, message), std::nullopt};
}

std::string lower(std::string text) {
    for (char& c : text) {
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
    return text;
}

std::string trimmed(std::string_view text) {
    std::size_t begin = 0;
    std::size_t end = text.size();
    while (begin < end && (text[begin] == ' ' || text[begin] == '\t')) {
        ++begin;
    }
    while (end > begin && (text[end - 1] == ' ' || text[end - 1] == '\t')) {
        --end;
    }
    return std::string(text.substr(begin, end - begin));
}

const char* reason_phrase(int code) {
    switch (code) {
        case 200:
            return "OK";
        case 400:
            return "Bad Request";
        case 403:
            return "Forbidden";
        case 404:
            return "Not Found";
        case 411:
            return "Length Required";
        case 413:
            return "Request Entity Too Large";
        case 422:
            return "Unprocessable Entity";
        default:
            return "Internal Server Error";
    }
}

}  // namespace

std::optional<PostRequest> parse_request_head(std::string_view head) {
    PostRequest request;
    std::size_t line_end = head.find("\r\n");
    const std::string_view first = head.substr(0, line_end);
    const std::size_t sp1 = first.find(' ');
    const std::size_t sp2 = sp1 == std::string_view::npos ? sp1 : first.find(' ', sp1 + 1);
    if (sp2 == std::string_view::npos || first.substr(sp2 + 1).rfind("HTTP/1.", 0) != 0) {
        return std::nullopt;
    }
    request.method = std::string(first.substr(0, sp1));
    const std::string_view target = first.substr(sp1 + 1, sp2 - sp1 - 1);
    request.path = std::string(target.substr(0, target.find('?')));
    while (line_end != std::string_view::npos && line_end + 2 < head.size()) {
        const std::size_t start = line_end + 2;
        line_end = head.find("\r\n", start);
        const std::string_view line = head.substr(
            start, line_end == std::string_view::npos ? std::string_view::npos : line_end - start);
        const std::size_t colon = line.find(':');
        if (colon == std::string_view::npos || colon == 0) {
            return std::nullopt;
        }
        const std::string name = lower(std::string(line.substr(0, colon)));
        const std::string value = trimmed(line.substr(colon + 1));
        if (name == "authorization") {
            request.authorization = value;
        } else if (name == "transfer-encoding") {
            request.chunked = true;
        } else if (name == "content-length") {
            if (value.empty() || value.size() > 18 ||
                value.find_first_not_of("0123456789") != std::string::npos) {
                return std::nullopt;
            }
            request.content_length = std::stoull(value);
        }
    }
    return request;
}

std::string http_answer_text(const PostAnswer& answer) {
    const std::string body = util::json_text(answer.body) + "\n";
    return fmt::format(
        "HTTP/1.1 {} {}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n"
        "Connection: close\r\n\r\n{}",
        answer.code, reason_phrase(answer.code), body.size(), body);
}

std::string status_post_path(const std::string& namespace_, const std::string& name) {
    return fmt::format("{}{}/trainjobs/{}/status", k_prefix, namespace_, name);
}

json failure_status(int code, const std::string& reason, const std::string& message) {
    return {{"metadata", json::object()},
            {"status", "Failure"},
            {"message", message},
            {"reason", reason},
            {"code", code}};
}

PostAnswer answer_post(const PostRequest& request, const PostTarget& target) {
    if (request.content_length && *request.content_length > k_max_status_body) {
        return failure(413, "RequestEntityTooLarge", "Payload too large");
    }
    std::string ns;
    std::string name;
    if (request.method != "POST" || !parse_status_path(request.path, ns, name)) {
        return failure(404, "NotFound", "Not found");
    }
    const std::string token = bearer_token(request.authorization);
    if (token.empty() || token != target.token || ns != target.namespace_ || name != target.name) {
        return failure(403, "Forbidden", "Forbidden");
    }
    json decoded;
    try {
        const json body = util::parse_untrusted_json(request.body);
        if (!body.is_object() && !body.is_null()) {  // not JSON (discarded), or not an object
            throw InvalidPayload{};
        }
        const auto it = body.is_object() ? body.find("trainerStatus") : body.end();
        if (body.is_null() || it == body.end() || it->is_null()) {
            return {200, json::object(), std::nullopt};  // nothing to record: echoed
        }
        decoded = decode_trainer_status(*it);
    } catch (const json::exception&) {
        return failure(422, "Invalid", "Invalid payload");
    } catch (const InvalidPayload&) {
        return failure(422, "Invalid", "Invalid payload");
    }
    const auto errors = crd_errors(decoded);
    if (!errors.empty()) {
        std::string list = errors.front();
        if (errors.size() > 1) {
            list = "[" + errors.front();
            for (std::size_t i = 1; i < errors.size(); ++i) {
                list += ", " + errors[i];
            }
            list += "]";
        }
        return failure(
            422, "Invalid",
            fmt::format("TrainJob.trainer.kubeflow.org \"{}\" is invalid: {}", target.name, list));
    }
    return {200, json{{"trainerStatus", decoded}}, decoded};
}

}  // namespace kftrain::backend::local
