#include "util/redact.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cstring>
#include <sstream>
#include <utility>
#include <vector>

#include "util/secret_shapes.h"
#include "util/text.h"

namespace kftrain::util {
namespace {

constexpr const char* k_mask = "***";
constexpr std::array<const char*, 5> k_secret_words = {"token", "password", "passwd", "secret",
                                                       "key"};

// Return a name's words, upper case: split at '_', '-', '.' and where camelCase turns upper
// (privateKey, accessToken).
std::vector<std::string> name_words(const std::string& name) {
    std::string upper;
    for (size_t i = 0; i < name.size(); ++i) {
        const auto c = static_cast<unsigned char>(name[i]);
        if (i > 0 && std::isupper(c) && std::islower(static_cast<unsigned char>(name[i - 1]))) {
            upper += '_';
        }
        upper += c == '-' || c == '.' ? '_' : static_cast<char>(std::toupper(c));
    }
    std::vector<std::string> words;
    std::istringstream in(upper);
    for (std::string word; std::getline(in, word, '_');) {
        if (!word.empty()) {
            words.push_back(word);
        }
    }
    return words;
}

// Whether one word of a name names a credential (see names_credential).
bool credential_word(const std::string& word) {
    auto ends_with = [&word](const char* suffix) {
        const size_t n = std::strlen(suffix);
        return word.size() >= n && word.compare(word.size() - n, n, suffix) == 0;
    };
    return word == "PASSPHRASE" || word == "KEY" || word == "CREDENTIAL" || word == "CREDENTIALS" ||
           word == "AUTH" || word == "PAT" || word == "PASS" || ends_with("PASSWORD") ||
           ends_with("PASSWD") || ends_with("TOKEN") || ends_with("SECRET") ||
           ends_with("APIKEY");  // PGPASSWORD, APITOKEN too
}

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

// Whether a query parameter's name holds a secret: any of k_secret_words in it, a signature
// (X-Amz-Signature, X-Goog-Signature) or Azure's sig: what a presigned URL grants access by.
bool secret_name(const std::string& name) {
    const std::string lower = to_lower(name);
    for (const char* word : k_secret_words) {
        if (lower.find(word) != std::string::npos) {
            return true;
        }
    }
    return lower == "sig" || lower.find("signature") != std::string::npos;
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

bool blank(char c) {
    return c == ' ' || c == '\t';
}

// Return where the value after a separator at sep starts (past spaces and tabs) and ends
// (its closing quote when quoted); an empty range when there is none.
std::pair<size_t, size_t> value_at(const std::string& text, size_t sep) {
    size_t start = sep + 1;
    while (start < text.size() && blank(text[start])) {
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

// A name before a separator, and whether it was quoted ("name": or 'name': ).
struct SeparatedName {
    std::string name;
    bool quoted = false;
    size_t start = 0;  // where it starts in the text (its quote, dashes excluded)
};

// Return the name a separator at sep follows, past spaces and tabs: NAME= and --name=, a
// quoted "name" or 'name' (JSON, a Python dict's repr), or a bare name; "" when there is none.
SeparatedName name_before(const std::string& text, size_t sep, size_t from) {
    size_t end = sep;
    while (end > from && blank(text[end - 1])) {
        --end;  // aws_secret_access_key = ..., 'key' : ...
    }
    char quote = 0;
    if (end > from && (text[end - 1] == '"' || text[end - 1] == '\'')) {
        quote = text[--end];
    }
    size_t start = end;
    while (start > from && name_char(text[start - 1])) {
        --start;
    }
    if (quote != 0 && (start == from || text[start - 1] != quote)) {
        return {};
    }
    std::string name = text.substr(start, end - start);
    name.erase(0, name.find_first_not_of('-'));
    return {name, quote != 0, start};
}

// Return whether a separator at sep follows a credential's name. A bare name before ':' must
// end in a credential's word (password: x, token:x), so "KeyError: x" is no key's value.
bool after_credential_name(const std::string& text, size_t sep, size_t from) {
    const SeparatedName named = name_before(text, sep, from);
    if (named.name.empty() || std::isalpha(static_cast<unsigned char>(named.name.front())) == 0) {
        return false;
    }
    if (text[sep] == ':' && !named.quoted) {
        // A bare name stands alone: at the start, or after a blank, a bracket or a comma (not
        // "/etc/passwd: no such file").
        if (named.start > from && std::strchr(" \t{([,;", text[named.start - 1]) == nullptr) {
            return false;
        }
        const auto words = name_words(named.name);
        return !words.empty() && credential_word(words.back());
    }
    return names_credential(named.name);
}

// Return whether the word before a space at sep is an HTTP authorization scheme whose
// credentials follow: Bearer or Basic.
bool after_scheme(const std::string& text, size_t sep) {
    for (const char* scheme : {"Bearer", "bearer", "Basic", "basic"}) {
        const size_t n = std::strlen(scheme);
        if (sep >= n && text.compare(sep - n, n, scheme) == 0 &&
            (sep == n || !name_char(text[sep - n - 1]))) {
            return true;
        }
    }
    return false;
}

bool space_char(char c) {
    return std::isspace(static_cast<unsigned char>(c)) != 0;
}

// Whether the word that ends at sep is word in any case, standing alone (not max_token).
bool word_before(const std::string& text, size_t sep, const char* word) {
    const size_t n = std::strlen(word);
    if (sep < n || (sep > n && name_char(text[sep - n - 1]))) {
        return false;
    }
    for (size_t i = 0; i < n; ++i) {
        if (std::tolower(static_cast<unsigned char>(text[sep - n + i])) != word[i]) {
            return false;
        }
    }
    return true;
}

// Whether text[start, end) looks like a credential rather than a word: 8 or more characters
// of a token's alphabet, a letter and a digit among them ("abc123def", not "count").
bool credential_shaped(const std::string& text, size_t start, size_t end) {
    bool letter = false, digit = false;
    for (size_t i = start; i < end; ++i) {
        const auto c = static_cast<unsigned char>(text[i]);
        if (std::isalnum(c) == 0 && std::strchr("._~+/=-", c) == nullptr) {
            return false;
        }
        letter = letter || std::isalpha(c) != 0;
        digit = digit || std::isdigit(c) != 0;
    }
    return end - start >= 8 && letter && digit;
}

// Whether netrc's "machine" or "login" stands as a word in the 512 bytes before sep: "machine
// h login u password p", on one line or on several as a .netrc file has them.
bool after_netrc_entry(const std::string& text, size_t sep) {
    for (size_t i = sep > 512 ? sep - 512 : 0; i < sep; ++i) {
        if (space_char(text[i]) &&
            (word_before(text, i, "login") || word_before(text, i, "machine"))) {
            return true;
        }
    }
    return false;
}

// Return whether the value after a space at sep is a credential a word before it names:
// GitHub's "Authorization: token X" (or any token-shaped X after "token"), and netrc's
// "password X" on a line with its machine or login.
bool after_keyword(const std::string& text, size_t sep) {
    if (after_scheme(text, sep)) {
        return true;
    }
    if (word_before(text, sep, "token")) {
        const auto [start, end] = value_at(text, sep);
        size_t before = sep - 5;
        while (before > 0 && blank(text[before - 1])) {
            --before;
        }
        const size_t n = std::strlen("authorization:");
        const bool header = before >= n && to_lower(text.substr(before - n, n)) == "authorization:";
        return header || credential_shaped(text, start, end);
    }
    return (word_before(text, sep, "password") || word_before(text, sep, "passwd")) &&
           after_netrc_entry(text, sep);
}

// Mask the value of every NAME=value, --name=value, NAME="value", "name": "value",
// 'name': 'value' and name: value whose name names a credential, and the credentials after
// "Bearer " or "Basic ". A scan, not a regex, that looks past a separator only after a
// credential's name: a line may be a megabyte long.
std::string mask_assignments(const std::string& text) {
    std::string out;
    size_t copied = 0;
    for (size_t sep = text.find_first_of("=: "); sep != std::string::npos;
         sep = text.find_first_of("=: ", sep + 1)) {
        const bool secret =
            text[sep] == ' ' ? after_keyword(text, sep) : after_credential_name(text, sep, copied);
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
    return mask_assignments(mask_private_keys(mask_token_shapes(redact_credentials(text))));
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
    const auto words = name_words(name);
    return std::any_of(words.begin(), words.end(), credential_word);
}

}  // namespace kftrain::util
