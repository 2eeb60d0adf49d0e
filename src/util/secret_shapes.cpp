#include "util/secret_shapes.h"

#include <algorithm>
#include <cctype>
#include <cstring>

namespace kftrain::util {
namespace {

constexpr const char* k_shape_mask = "***";
// A PEM body line: 64 base64 characters (RFC 7468).
constexpr size_t k_pem_line = 64;

bool alnum(char c) {
    return std::isalnum(static_cast<unsigned char>(c)) != 0;
}

bool word_char(char c) {
    return alnum(c) || c == '_';
}

// Return the length of the GitHub token prefix at i ("ghp_", "github_pat_"), 0 if none, and
// the least length of the body after it and whether '_' may be in it.
size_t github_prefix(const std::string& text, size_t i, size_t& least, bool& underscores) {
    if (text.compare(i, 11, "github_pat_") == 0) {
        least = 22;
        underscores = true;
        return 11;
    }
    if (i + 4 <= text.size() && text.compare(i, 2, "gh") == 0 &&
        std::strchr("pousr", text[i + 2]) != nullptr && text[i + 2] != '\0' && text[i + 3] == '_') {
        least = 36;
        underscores = false;
        return 4;
    }
    return 0;
}

bool base64_char(char c) {
    return alnum(c) || c == '+' || c == '/';
}

bool space(char c) {
    return std::isspace(static_cast<unsigned char>(c)) != 0;
}

// Whether text[start, end) is a PEM body line: 64 base64 characters, mixed as random bytes
// encode (an upper-case letter, a lower-case letter and a digit: not a hex digest).
bool pem_body_line(const std::string& text, size_t start, size_t end) {
    if (end - start != k_pem_line) {
        return false;
    }
    bool upper = false, lower = false, digit = false;
    for (size_t i = start; i < end; ++i) {
        const auto c = static_cast<unsigned char>(text[i]);
        if (!base64_char(text[i])) {
            return false;
        }
        upper = upper || std::isupper(c) != 0;
        lower = lower || std::islower(c) != 0;
        digit = digit || std::isdigit(c) != 0;
    }
    return upper && lower && digit;
}

// Mask every whitespace-separated word that is a PEM body line.
std::string mask_body_lines(const std::string& text) {
    std::string out;
    size_t copied = 0;
    size_t i = 0;
    while (i < text.size()) {
        while (i < text.size() && space(text[i])) {
            ++i;
        }
        const size_t start = i;
        while (i < text.size() && !space(text[i])) {
            ++i;
        }
        if (pem_body_line(text, start, i)) {
            out.append(text, copied, start - copied);
            out += k_shape_mask;
            copied = i;
        }
    }
    out.append(text, copied, std::string::npos);
    return out;
}

}  // namespace

std::string mask_token_shapes(const std::string& text) {
    std::string out;
    size_t copied = 0;
    for (size_t at = text.find("g"); at != std::string::npos; at = text.find('g', at + 1)) {
        size_t least = 0;
        bool underscores = false;
        const size_t prefix = github_prefix(text, at, least, underscores);
        if (prefix == 0 || (at > 0 && word_char(text[at - 1]))) {
            continue;
        }
        size_t end = at + prefix;
        while (end < text.size() && (underscores ? word_char(text[end]) : alnum(text[end]))) {
            ++end;
        }
        if (end - at - prefix < least || (end < text.size() && word_char(text[end]))) {
            at = end - 1;
            continue;
        }
        out.append(text, copied, at + prefix - copied);
        out += k_shape_mask;
        copied = end;
        at = end - 1;
    }
    out.append(text, copied, std::string::npos);
    return out;
}

std::string mask_private_keys(const std::string& text) {
    constexpr const char* k_begin = "-----BEGIN ";
    constexpr const char* k_key_end = "PRIVATE KEY-----";
    std::string out;
    size_t copied = 0;
    // The next line break and "PRIVATE KEY-----" at or after a BEGIN, each found again only
    // once a BEGIN lies past it: a line of many BEGINs is one scan, not one per BEGIN.
    size_t line_end = 0, marker = 0;
    bool looked = false;
    for (size_t begin = text.find(k_begin); begin != std::string::npos;
         begin = text.find(k_begin, begin + 1)) {
        if (!looked || line_end < begin) {
            line_end = std::min(text.find('\n', begin), text.size());
        }
        if (!looked || marker < begin) {
            marker = std::min(text.find(k_key_end, begin), text.size());
        }
        looked = true;
        if (marker == text.size() || marker > line_end) {
            continue;
        }
        const size_t body = marker + std::strlen(k_key_end);
        size_t end = text.find("-----END ", body);
        end = end == std::string::npos ? text.size() : end;
        // The line breaks around the body stay, so the markers keep their lines.
        size_t first = body;
        while (first < end && (text[first] == '\r' || text[first] == '\n')) {
            ++first;
        }
        size_t last = end;
        while (last > first && space(text[last - 1])) {
            --last;
        }
        if (last > first) {
            out.append(text, copied, first - copied);
            out += k_shape_mask;
            copied = last;
        }
        begin = end - 1;
        if (end == text.size()) {
            break;
        }
    }
    out.append(text, copied, std::string::npos);
    return mask_body_lines(out);
}

}  // namespace kftrain::util
