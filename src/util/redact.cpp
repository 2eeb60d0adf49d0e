#include "util/redact.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cstring>
#include <sstream>
#include <utility>

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

// Return where the value after a separator at sep starts (past spaces) and ends
// (its closing quote when quoted); an empty range when there is none.
std::pair<size_t, size_t> value_at(const std::string& text, size_t sep) {
    size_t start = sep + 1;
    while (start < text.size() && text[start] == ' ') {
        ++start;
    }
    if (start < text.size() && (text[start] == '"' || text[start] == '\'')) {
        const size_t close = text.find(text[start], start + 1);
        return {start + 1, close == std::string::npos ? text.size() : close};
    }
    size_t end = start;
    while (end < text.size() && !value_end(text[end])) {
        ++end;
    }
    return {start, end};
}

// Return the name a separator at sep follows: NAME= or --name= before '=', and only a quoted
// "name" before ':' (JSON), so "KeyError: x" is not a key's value; "" when there is none.
std::string name_before(const std::string& text, size_t sep, size_t from) {
    size_t end = sep;
    while (text[sep] == '=' && end > from && text[end - 1] == ' ') {
        --end;  // aws_secret_access_key = ...
    }
    if (text[sep] == ':') {
        if (end == from || text[end - 1] != '"') {
            return "";
        }
        --end;
    }
    size_t start = end;
    while (start > from && name_char(text[start - 1])) {
        --start;
    }
    if (text[sep] == ':' && (start == from || text[start - 1] != '"')) {
        return "";
    }
    std::string name = text.substr(start, end - start);
    name.erase(0, name.find_first_not_of('-'));
    return name;
}

// Mask the value of every NAME=value, --name=value, NAME="value" and "name": "value" whose
// name names a credential, and the token after "Bearer ". A scan, not a regex, that looks
// past a separator only after a credential's name: a line may be a megabyte long.
std::string mask_assignments(const std::string& text) {
    std::string out;
    size_t copied = 0;
    for (size_t sep = text.find_first_of("=: "); sep != std::string::npos;
         sep = text.find_first_of("=: ", sep + 1)) {
        bool secret = false;
        if (text[sep] == ' ') {
            secret = sep >= 6 && (text.compare(sep - 6, 6, "Bearer") == 0 ||
                                  text.compare(sep - 6, 6, "bearer") == 0);
        } else {
            const std::string name = name_before(text, sep, copied);
            secret = !name.empty() && std::isalpha(static_cast<unsigned char>(name.front())) &&
                     names_credential(name);
        }
        if (!secret) {
            continue;
        }
        const auto [start, end] = value_at(text, sep);
        if (end <= start) {
            continue;
        }
        out.append(text, copied, start - copied);
        out += k_mask;
        copied = end;
        sep = end - 1;
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
    // Words split at '_', '-', '.' and where camelCase turns upper (privateKey, accessToken).
    std::string upper;
    for (size_t i = 0; i < name.size(); ++i) {
        const auto c = static_cast<unsigned char>(name[i]);
        if (i > 0 && std::isupper(c) && std::islower(static_cast<unsigned char>(name[i - 1]))) {
            upper += '_';
        }
        upper += c == '-' || c == '.' ? '_' : static_cast<char>(std::toupper(c));
    }
    std::istringstream words(upper);
    std::string word;
    auto ends_with = [&word](const char* suffix) {
        const size_t n = std::strlen(suffix);
        return word.size() >= n && word.compare(word.size() - n, n, suffix) == 0;
    };
    while (std::getline(words, word, '_')) {
        if (word == "PASSPHRASE" || word == "KEY" || word == "CREDENTIAL" ||
            word == "CREDENTIALS" || word == "AUTH" || word == "PAT" || word == "PASS" ||
            ends_with("PASSWORD") || ends_with("PASSWD") || ends_with("TOKEN") ||
            ends_with("SECRET") || ends_with("APIKEY")) {
            return true;  // PGPASSWORD, APITOKEN too
        }
    }
    return false;
}

}  // namespace kftrain::util
