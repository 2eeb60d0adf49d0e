#include "progress/text_scan.h"

#include <cctype>

#include "util/text.h"

namespace kftrain::progress::text_scan {

bool is_digit(char c) {
    return std::isdigit(static_cast<unsigned char>(c)) != 0;
}

bool is_word(char c) {
    return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_';
}

Text trimmed(Text text) {
    while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) {
        text.remove_prefix(1);
    }
    while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) {
        text.remove_suffix(1);
    }
    return text;
}

bool starts_with(Text text, Text prefix) {
    return text.substr(0, prefix.size()) == prefix;
}

bool starts_with_nocase(Text text, Text prefix) {
    if (text.size() < prefix.size()) {
        return false;
    }
    for (size_t i = 0; i < prefix.size(); ++i) {
        if (std::tolower(static_cast<unsigned char>(text[i])) != prefix[i]) {
            return false;
        }
    }
    return true;
}

// A whole number at text[i], moving i past it; nullopt (i unmoved) when none or too large.
std::optional<long long> take_count(Text text, size_t& i) {
    size_t j = i;
    long long value = 0;
    while (j < text.size() && is_digit(text[j])) {
        value = value * 10 + (text[j] - '0');
        if (value > k_max_count) {
            return std::nullopt;
        }
        ++j;
    }
    if (j == i) {
        return std::nullopt;
    }
    i = j;
    return value;
}

// A decimal number at text[i] ("89.50", "4.9e-05", "-0.3"), moving i past it.
std::optional<double> take_number(Text text, size_t& i) {
    size_t j = i;
    if (j < text.size() && (text[j] == '-' || text[j] == '+')) {
        ++j;
    }
    const size_t digits = j;
    while (j < text.size() && (is_digit(text[j]) || text[j] == '.')) {
        ++j;
    }
    if (j == digits) {
        return std::nullopt;
    }
    if (j + 1 < text.size() && (text[j] == 'e' || text[j] == 'E') &&
        (is_digit(text[j + 1]) || text[j + 1] == '-' || text[j + 1] == '+')) {
        ++j;
        ++j;
        while (j < text.size() && is_digit(text[j])) {
            ++j;
        }
    }
    auto value = util::parse_number(std::string(text.substr(i, j - i)), false);
    if (value) {
        i = j;
    }
    return value;
}

// A tqdm or Keras duration: "01:02", "1:02:03", "12s", "1d 02:03:04" is not; nullopt for "?".
std::optional<double> parse_clock(Text text) {
    text = trimmed(text);
    if (!text.empty() && text.back() == 's' && text.find(':') == Text::npos) {
        size_t i = 0;
        auto seconds = take_number(text, i);
        return seconds && i + 1 == text.size() ? seconds : std::nullopt;
    }
    double total = 0;
    int parts = 0;
    size_t i = 0;
    while (i < text.size()) {
        auto part = take_count(text, i);
        if (!part || ++parts > 3) {
            return std::nullopt;
        }
        total = total * 60 + static_cast<double>(*part);
        if (i < text.size() && text[i] != ':') {
            return std::nullopt;
        }
        i += i < text.size() ? 1 : 0;
    }
    return parts >= 2 ? std::optional<double>(total) : std::nullopt;
}

}  // namespace kftrain::progress::text_scan
