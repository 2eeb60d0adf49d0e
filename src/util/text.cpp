#include "util/text.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <exception>

namespace kftrain::util {

std::vector<std::string> split_lines(const std::string& text) {
    std::vector<std::string> lines;
    size_t start = 0;
    while (start < text.size()) {
        size_t end = text.find('\n', start);
        if (end == std::string::npos) {
            end = text.size();
        }
        lines.push_back(text.substr(start, end - start));
        start = end + 1;
    }
    return lines;
}

std::string to_lower(std::string text) {
    std::transform(text.begin(), text.end(), text.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return text;
}

std::string to_upper(std::string text) {
    std::transform(text.begin(), text.end(), text.begin(),
                   [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
    return text;
}

std::string first_line(const std::string& text) {
    return text.substr(0, text.find('\n'));
}

std::string trim(const std::string& text) {
    const auto first = text.find_first_not_of(" \t\r\n");
    if (first == std::string::npos) {
        return "";
    }
    return text.substr(first, text.find_last_not_of(" \t\r\n") - first + 1);
}

std::vector<std::string> split(const std::string& text, char sep) {
    std::vector<std::string> parts;
    std::size_t start = 0;
    while (true) {
        const auto end = text.find(sep, start);
        parts.push_back(trim(text.substr(start, end == std::string::npos ? end : end - start)));
        if (end == std::string::npos) {
            return parts;
        }
        start = end + 1;
    }
}

std::optional<double> parse_number(const std::string& text, bool integer) {
    if (text.empty()) {
        return std::nullopt;
    }
    if (integer) {
        long long value = 0;
        const char* begin = text.data() + (text[0] == '+' ? 1 : 0);
        auto [end, ec] = std::from_chars(begin, text.data() + text.size(), value);
        if (ec != std::errc() || end != text.data() + text.size()) {
            return std::nullopt;
        }
        return static_cast<double>(value);
    }
    try {
        size_t used = 0;
        double value = std::stod(text, &used);
        if (used != text.size() || !std::isfinite(value)) {
            return std::nullopt;
        }
        return value;
    } catch (const std::exception&) {
        return std::nullopt;
    }
}

std::string counted(long long count, const std::string& noun, const std::string& many) {
    if (count == 1) {
        return "1 " + noun;
    }
    return std::to_string(count) + " " + (many.empty() ? noun + "s" : many);
}

void append_printable(std::string& out, unsigned char byte) {
    static const char k_hex[] = "0123456789abcdef";
    if (byte == '\t') {
        out += "\\t";
    } else if (byte == '\r') {
        out += "\\r";
    } else if (byte < 0x20 || byte == 0x7f) {
        out += "\\x";
        out += k_hex[byte >> 4];
        out += k_hex[byte & 0xf];
    } else {
        out += static_cast<char>(byte);
    }
}

namespace {

// Return the length (2 to 4) of the valid UTF-8 sequence of a non-ASCII character at i, with its
// code point in code, or 0 where none starts there: a stray continuation byte, a lead byte
// cut short or followed by a non-continuation, an overlong form, a surrogate, past U+10FFFF.
size_t utf8_sequence_at(std::string_view text, size_t i, char32_t& code) {
    const auto lead = static_cast<unsigned char>(text[i]);
    size_t length = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 0;
    if (length == 0 || lead >= 0xF8 || i + length > text.size()) {
        return 0;
    }
    code = lead & (0x7F >> length);
    for (size_t k = 1; k < length; ++k) {
        const auto next = static_cast<unsigned char>(text[i + k]);
        if ((next & 0xC0) != 0x80) {
            return 0;
        }
        code = (code << 6) | (next & 0x3F);
    }
    static const char32_t k_smallest[] = {0, 0, 0x80, 0x800, 0x10000};
    if (code < k_smallest[length] || code > 0x10FFFF || (code >= 0xD800 && code <= 0xDFFF)) {
        return 0;
    }
    return length;
}

// Whether a code point must not reach a terminal as it is: a C1 control (U+0080 to U+009F;
// U+009B is a CSI to many terminals), or a bidirectional embedding, override or isolate
// (U+202A to U+202E, U+2066 to U+2069), which makes text read in another order than it is.
bool is_hidden_control(char32_t code) {
    return (code >= 0x80 && code <= 0x9F) || (code >= 0x202A && code <= 0x202E) ||
           (code >= 0x2066 && code <= 0x2069);
}

}  // namespace

size_t append_printable_at(std::string& out, std::string_view text, size_t i) {
    const auto byte = static_cast<unsigned char>(text[i]);
    if (byte < 0x80) {
        append_printable(out, byte);
        return i + 1;
    }
    char32_t code = 0;
    const size_t length = utf8_sequence_at(text, i, code);
    if (length == 0) {
        out += fmt::format("\\x{:02x}", byte);  // not UTF-8: a raw 0x9B is a CSI to some
        return i + 1;
    }
    if (is_hidden_control(code)) {
        out += fmt::format("\\u{:04x}", static_cast<uint32_t>(code));
    } else {
        out.append(text, i, length);
    }
    return i + length;
}

std::string escape_line(const std::string& text) {
    std::string out;
    out.reserve(text.size());
    for (size_t i = 0; i < text.size();) {
        i = append_printable_at(out, text, i);
    }
    return out;
}

bool is_valid_utf8(std::string_view text) {
    for (size_t i = 0; i < text.size();) {
        if (static_cast<unsigned char>(text[i]) < 0x80) {
            ++i;
            continue;
        }
        char32_t code = 0;
        const size_t length = utf8_sequence_at(text, i, code);
        if (length == 0) {
            return false;
        }
        i += length;
    }
    return true;
}

bool has_controls(std::string_view text) {
    for (size_t i = 0; i < text.size();) {
        const auto byte = static_cast<unsigned char>(text[i]);
        if (byte < 0x20 || byte == 0x7f) {
            return true;
        }
        if (byte < 0x80) {
            ++i;
            continue;
        }
        char32_t code = 0;
        const size_t length = utf8_sequence_at(text, i, code);
        if (length == 0 || is_hidden_control(code)) {
            return true;
        }
        i += length;
    }
    return false;
}

std::string escape_controls(const std::string& text) {
    std::string out;
    out.reserve(text.size());
    for (size_t i = 0; i < text.size();) {
        if (text[i] == '\n') {
            out += text[i++];
        } else {
            i = append_printable_at(out, text, i);
        }
    }
    return out;
}

std::string excerpt(const std::string& text, size_t max_bytes) {
    if (text.size() <= max_bytes) {
        return text;
    }
    size_t cut = max_bytes;
    while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) {
        --cut;  // not inside a UTF-8 sequence
    }
    return text.substr(0, cut) + "...";
}

}  // namespace kftrain::util
