#include "util/redact.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <sstream>

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

bool scheme_char(char c) {
    return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '+' || c == '-' || c == '.';
}

// Return where the next URI with an authority ("scheme://", RFC 3986: a letter, then letters,
// digits, +, - or .) starts at or after from; npos if none.
size_t find_scheme(const std::string& lower, size_t from, size_t& scheme_end) {
    for (size_t colon = lower.find("://", from); colon != std::string::npos;
         colon = lower.find("://", colon + 1)) {
        size_t at = colon;
        while (at > from && scheme_char(lower[at - 1])) {
            --at;
        }
        while (at < colon && std::isalpha(static_cast<unsigned char>(lower[at])) == 0) {
            ++at;  // a scheme starts with a letter
        }
        if (at < colon) {
            scheme_end = colon + 3;
            return at;
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

bool name_char(char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '-';
}

bool value_end(char c) {
    return std::isspace(static_cast<unsigned char>(c)) || c == '"' || c == '\'' || c == ',' ||
           c == ';' || c == '&';
}

// Mask the value of every NAME=value and --name=value whose name names a credential. A scan,
// not a regex: a line may be a megabyte long.
std::string mask_assignments(const std::string& text) {
    std::string out;
    size_t copied = 0;
    for (size_t eq = text.find('='); eq != std::string::npos; eq = text.find('=', eq + 1)) {
        size_t start = eq;
        while (start > copied && name_char(text[start - 1])) {
            --start;
        }
        std::string name = text.substr(start, eq - start);
        name.erase(0, name.find_first_not_of('-'));
        size_t end = eq + 1;
        while (end < text.size() && !value_end(text[end])) {
            ++end;
        }
        if (name.empty() || !std::isalpha(static_cast<unsigned char>(name.front())) ||
            end == eq + 1 || !names_credential(name)) {
            continue;
        }
        out.append(text, copied, eq + 1 - copied);
        out += k_mask;
        copied = end;
        eq = end - 1;
    }
    out.append(text, copied, std::string::npos);
    return out;
}

}  // namespace

std::string mask_secrets(const std::string& text) {
    return mask_assignments(redact_credentials(text));
}

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

bool names_credential(const std::string& name) {
    std::string upper = name;
    std::transform(upper.begin(), upper.end(), upper.begin(),
                   [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
    std::replace_if(
        upper.begin(), upper.end(), [](char c) { return c == '-' || c == '.'; }, '_');
    std::istringstream words(upper);
    std::string word;
    while (std::getline(words, word, '_')) {
        if (word == "PASSWORD" || word == "PASSWD" || word == "PASSPHRASE" || word == "TOKEN" ||
            word == "SECRET" || word == "KEY" || word == "CREDENTIAL" || word == "CREDENTIALS" ||
            word == "AUTH" || word == "APIKEY" || word == "PAT") {
            return true;
        }
    }
    return false;
}

}  // namespace kftrain::util
