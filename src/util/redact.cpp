#include "util/redact.h"

#include <array>

#include "util/text.h"

namespace kftrain::util {
namespace {

constexpr const char* k_mask = "***";
constexpr std::array<const char*, 5> k_secret_words = {"token", "password", "passwd", "secret",
                                                       "key"};

// Return whether a character ends a URI inside free text.
bool ends_uri(char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '"' || c == '\'' || c == '<' ||
           c == '>' || c == '`';
}

// Return where the next http:// or https:// starts at or after from (any case); npos if none.
size_t find_scheme(const std::string& lower, size_t from, size_t& scheme_end) {
    for (size_t at = lower.find("http", from); at != std::string::npos;
         at = lower.find("http", at + 1)) {
        for (const char* scheme : {"https://", "http://"}) {
            if (lower.compare(at, std::string(scheme).size(), scheme) == 0) {
                scheme_end = at + std::string(scheme).size();
                return at;
            }
        }
    }
    return std::string::npos;
}

bool secret_name(const std::string& name) {
    const std::string lower = to_lower(name);
    for (const char* word : k_secret_words) {
        if (lower.find(word) != std::string::npos) {
            return true;
        }
    }
    return false;
}

// Mask the values of secret query parameters in "name=value&name=value".
std::string redact_query(const std::string& query) {
    std::string out;
    size_t start = 0;
    while (start <= query.size()) {
        size_t end = query.find_first_of("&;", start);
        end = end == std::string::npos ? query.size() : end;
        std::string param = query.substr(start, end - start);
        size_t eq = param.find('=');
        if (eq != std::string::npos && eq + 1 < param.size() && secret_name(param.substr(0, eq))) {
            param = param.substr(0, eq + 1) + k_mask;
        }
        out += param;
        if (end < query.size()) {
            out += query[end];
        }
        start = end + 1;
    }
    return out;
}

// Mask the credentials of one URI after its scheme: authority, path, query, fragment.
std::string redact_rest(const std::string& rest) {
    size_t authority_end = rest.find_first_of("/?#");
    authority_end = authority_end == std::string::npos ? rest.size() : authority_end;
    std::string out = rest.substr(0, authority_end);
    size_t at = out.rfind('@');
    if (at != std::string::npos && at > 0) {
        out = k_mask + out.substr(at);
    }
    std::string tail = rest.substr(authority_end);
    size_t question = tail.find('?');
    if (question == std::string::npos) {
        return out + tail;
    }
    size_t hash = tail.find('#', question);
    std::string query =
        tail.substr(question + 1, hash == std::string::npos ? hash : hash - question - 1);
    std::string fragment = hash == std::string::npos ? "" : tail.substr(hash);
    return out + tail.substr(0, question + 1) + redact_query(query) + fragment;
}

}  // namespace

std::string redact_credentials(const std::string& text) {
    const std::string lower = to_lower(text);
    std::string out;
    size_t done = 0;
    size_t scheme_end = 0;
    for (size_t at = find_scheme(lower, 0, scheme_end); at != std::string::npos;
         at = find_scheme(lower, done, scheme_end)) {
        size_t end = scheme_end;
        while (end < text.size() && !ends_uri(text[end])) {
            ++end;
        }
        out += text.substr(done, scheme_end - done);
        out += redact_rest(text.substr(scheme_end, end - scheme_end));
        done = end;
    }
    return out + text.substr(done);
}

}  // namespace kftrain::util
