#include "staging/listing.h"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <ctime>
#include <nlohmann/json.hpp>

#include "util/json_text.h"
#include "util/text.h"
#include "util/text_table.h"

namespace kftrain::staging {
namespace {

// stat's %F in words kftrain shows.
std::string entry_type(const std::string& stat_type) {
    if (stat_type == "regular file" || stat_type == "regular empty file") {
        return "file";
    }
    if (stat_type == "directory") {
        return "directory";
    }
    if (stat_type == "symbolic link") {
        return "symlink";
    }
    return "other";
}

}  // namespace

std::string stat_format(const std::string& token) {
    return token + "\t%F\t%s\t%Y\t%n";
}

namespace {

// Split stat's output into its records: each from its marker (the token and a tab, at the start
// of a line) to the newline before the next marker, or to the end.
std::vector<std::string> split_records(const std::string& text, const std::string& token) {
    const std::string marker = token + "\t";
    std::vector<std::string> records;
    size_t at = text.compare(0, marker.size(), marker) == 0 ? 0 : text.find("\n" + marker);
    while (at != std::string::npos) {
        const size_t start = at + (text[at] == '\n' ? 1 : 0) + marker.size();
        const size_t next = text.find("\n" + marker, start);
        std::string record = text.substr(start, next == std::string::npos ? next : next - start);
        if (next == std::string::npos && !record.empty() && record.back() == '\n') {
            record.pop_back();
        }
        records.push_back(std::move(record));
        at = next;
    }
    return records;
}

}  // namespace

Listing parse_stat_records(const std::string& text, const std::string& base,
                           const std::string& token) {
    Listing listing;
    for (const auto& line : split_records(text, token)) {
        size_t a = line.find('\t');
        size_t b = a == std::string::npos ? a : line.find('\t', a + 1);
        size_t c = b == std::string::npos ? b : line.find('\t', b + 1);
        if (c == std::string::npos) {
            continue;
        }
        auto size = util::parse_number(line.substr(a + 1, b - a - 1), true);
        auto mtime = util::parse_number(line.substr(b + 1, c - b - 1), true);
        std::string name = line.substr(c + 1);
        if (!size || !mtime || *size < 0) {
            continue;
        }
        Entry entry{"", entry_type(line.substr(0, a)), 0, static_cast<int64_t>(*mtime)};
        entry.size = entry.type == "file" ? static_cast<uint64_t>(*size) : 0;  // as ls shows
        if (name == base) {
            listing.found = true;
            listing.path_is_directory = entry.type == "directory";
            continue;
        }
        if (name.compare(0, base.size() + 1, base + "/") != 0) {
            continue;
        }
        entry.path = name.substr(base.size() + 1);
        listing.entries.push_back(entry);
    }
    std::sort(listing.entries.begin(), listing.entries.end(),
              [](const Entry& x, const Entry& y) { return x.path < y.path; });
    return listing;
}

std::string format_bytes(uint64_t bytes) {
    if (bytes < 1024) {
        return fmt::format("{} B", bytes);
    }
    const char* units[] = {"KiB", "MiB", "GiB", "TiB", "PiB"};
    double value = static_cast<double>(bytes) / 1024;
    size_t unit = 0;
    while (value >= 1024 && unit + 1 < std::size(units)) {
        value /= 1024;
        ++unit;
    }
    return fmt::format("{:.1f} {}", value, units[unit]);
}

}  // namespace kftrain::staging
