#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kftrain::util {

// Split text into lines without their newlines; a final newline adds no empty line.
std::vector<std::string> split_lines(const std::string& text);

// Return text with ASCII letters in lower case.
std::string to_lower(std::string text);
// Return text with ASCII letters in upper case.
std::string to_upper(std::string text);

// Return text up to its first newline, e.g. the first line of an exception message.
std::string first_line(const std::string& text);

// Return text without leading and trailing whitespace (spaces, tabs, CR, LF).
std::string trim(const std::string& text);

// Split text at every sep into trimmed parts; "" gives one empty part.
std::vector<std::string> split(const std::string& text, char sep);

// Parse a whole string as a finite number (an integer when integer, allowing a leading '+');
// nullopt for anything else: empty, trailing text, inf, nan, out of range.
std::optional<double> parse_number(const std::string& text, bool integer);

// Return the count with its noun, singular for 1: counted(1, "epoch") is "1 epoch",
// counted(3, "epoch") "3 epochs"; many is the plural where it is not noun + "s".
std::string counted(long long count, const std::string& noun, const std::string& many = "");

// Append byte to out as a terminal shows it harmlessly: tab and CR as \t and \r, other control
// bytes (C0, DEL) as \xNN, anything else as it is.
void append_printable(std::string& out, unsigned char byte);

// Append the character of text at i as a terminal shows it harmlessly, as append_printable
// does; a C1 control (U+0080 to U+009F: U+009B is a CSI to many terminals) or a
// bidirectional override, embedding or isolate (U+202A to U+202E, U+2066 to U+2069) as
// \uNNNN; a byte that starts no valid UTF-8 character (a raw 0x9B) as \xNN. Return the index
// after it. The one printer of untrusted text: escape_line and escape_controls use it.
size_t append_printable_at(std::string& out, std::string_view text, size_t i);

// Return whether text holds anything append_printable_at escapes.
bool has_controls(std::string_view text);

// Return whether text is valid UTF-8 (no stray or overlong sequence, no surrogate).
bool is_valid_utf8(std::string_view text);

// Return text with its control characters escaped as append_printable_at does, newlines kept: for
// messages that echo what a user or a program gave (an ESC in a job-file key must not reach
// the terminal as a command).
std::string escape_controls(const std::string& text);

// Return text as one line: escaped as escape_controls does, newlines too (\x0a), so a value
// from the cluster or a program cannot start a line of its own in a field view.
std::string escape_line(const std::string& text);

// Return text cut to at most max_bytes on a UTF-8 character boundary, "..." after when cut: what
// an error message quotes of a value, so that it never echoes a whole file.
std::string excerpt(const std::string& text, size_t max_bytes);

}  // namespace kftrain::util
