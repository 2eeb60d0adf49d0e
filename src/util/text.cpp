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

// Return whether text holds a C1 control's UTF-8 encoding at i.
bool c1_control_at(std::string_view text, size_t i) {
    return static_cast<unsigned char>(text[i]) == 0xC2 && i + 1 < text.size() &&
           static_cast<unsigned char>(text[i + 1]) >= 0x80 &&
           static_cast<unsigned char>(text[i + 1]) <= 0x9F;
}

}  // namespace

size_t append_printable_at(std::string& out, std::string_view text, size_t i) {
    if (c1_control_at(text, i)) {
        out += fmt::format("\\u{:04x}", static_cast<unsigned char>(text[i + 1]));
        return i + 2;
    }
    append_printable(out, static_cast<unsigned char>(text[i]));
    return i + 1;
}

std::string escape_line(const std::string& text) {
    std::string out;
    out.reserve(text.size());
    for (size_t i = 0; i < text.size();) {
        i = append_printable_at(out, text, i);
    }
    return out;
}

bool has_controls(std::string_view text) {
    for (size_t i = 0; i < text.size(); ++i) {
        const auto byte = static_cast<unsigned char>(text[i]);
        if (byte < 0x20 || byte == 0x7f || c1_control_at(text, i)) {
            return true;
        }
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
