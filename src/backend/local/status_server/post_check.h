#pragma once

// What Kubeflow Trainer's status server answers to a post, decided without any I/O: the
// local stand-in (status_endpoint.h) answers exactly as the controller's own handler and the
// API server's validation of the TrainJob CRD would (trainer v2.3.0 statusserver/).

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

namespace kftrain::backend::local {

// The largest body the server reads (statusserver maxBodySize): larger is 413.
inline constexpr std::size_t k_max_status_body = 1 << 16;

// The path a TrainJob's status is posted to, as KUBEFLOW_TRAINER_SERVER_URL ends.
std::string status_post_path(const std::string& namespace_, const std::string& name);

// The job a server stands for and the token its replicas were given.
struct PostTarget {
    std::string namespace_;
    std::string name;
    std::string token;
};

// One request as received: method, path (without query), Authorization header, body.
struct PostRequest {
    std::string method;
    std::string path;
    std::string authorization;
    std::optional<std::size_t> content_length;  // from the header; none when absent
    bool chunked = false;                       // Transfer-Encoding was given
    std::string body;
};

// The answer: the HTTP status code, its JSON body, and the trainerStatus to record (on a 200
// that carried one).
struct PostAnswer {
    int code = 200;
    nlohmann::json body;
    std::optional<nlohmann::json> trainer_status;
};

// Parse an HTTP/1.1 request's head (its request line and headers, up to the blank line) into
// a request without its body; none when it is not one (the server answers 400).
std::optional<PostRequest> parse_request_head(std::string_view head);

// Return the text of an HTTP/1.1 answer: status line, JSON headers, the body and a newline
// (as Go's JSON encoder ends it); the connection closes after it.
std::string http_answer_text(const PostAnswer& answer);

// Return the answer to request, as Trainer's server (and the API server behind it) gives it:
// 413 for a body over k_max_status_body, 404 for any other path or method, 403 for a missing
// or wrong bearer token or another job's path, 422 for a body that is not the request's JSON
// shape or that breaks the CRD's rules (progressPercentage 0..100, estimatedRemainingSeconds
// >= 0, metrics of at most 256 named string values of 1..64 characters, lastUpdatedTime
// required), else 200 echoing what was accepted.
PostAnswer answer_post(const PostRequest& request, const PostTarget& target);

// Return a Kubernetes Status body of failure, as the server's error answers carry it.
nlohmann::json failure_status(int code, const std::string& reason, const std::string& message);

}  // namespace kftrain::backend::local
