#pragma once

#include <cstddef>
#include <optional>
#include <string_view>

// The small scans text_line.cpp reads a program's lines with: a program may print any bytes,
// so each moves an index forward over a string_view and never reads past its end.
namespace kftrain::progress::text_scan {

using Text = std::string_view;

// Counts past this are no run's: a line that shows them is not progress.
inline constexpr long long k_max_count = 1'000'000'000'000LL;

bool is_digit(char c);
// A letter, a digit or '_'.
bool is_word(char c);
// text without leading and trailing whitespace.
Text trimmed(Text text);
bool starts_with(Text text, Text prefix);
// Whether text starts with prefix, whatever its case; prefix is lower case.
bool starts_with_nocase(Text text, Text prefix);
// A whole number at text[i], moving i past it; nullopt (i unmoved) when none or too large.
std::optional<long long> take_count(Text text, size_t& i);
// A decimal number at text[i] ("89.50", "4.9e-05", "-0.3"), moving i past it.
std::optional<double> take_number(Text text, size_t& i);
// A tqdm or Keras duration: "01:02", "1:02:03", "12s"; nullopt for "?" or anything else.
std::optional<double> parse_clock(Text text);

}  // namespace kftrain::progress::text_scan
