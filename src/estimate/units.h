#pragma once

#include <optional>
#include <string>

namespace kftrain::estimate {

// Parse a bandwidth such as "100Gbps", "25Gb/s", "10GB/s" or "800MiB/s" to bytes per
// second; bits ("bps", "b/s") and bytes ("B/s") both take decimal or binary prefixes.
std::optional<double> parse_bandwidth(const std::string& text);

// Parse a short time such as "30us", "0.5ms" or "1s" to seconds.
std::optional<double> parse_latency(const std::string& text);

// Parse an amount of money such as "50", "$50" or "12.5" (non-negative).
std::optional<double> parse_money(const std::string& text);

// Format bytes per second in decimal units with the bit rate after it: "12.5 GB/s (100 Gbps)".
std::string format_bandwidth(double bytes_per_s);

// Format a dollar amount: "$0.0042", "$1.23", "$1,234".
std::string format_money(double dollars);

}  // namespace kftrain::estimate
