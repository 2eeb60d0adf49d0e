#include "cli/data/listing.h"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <ctime>
#include <nlohmann/json.hpp>

#include "cli/view/text_table.h"
#include "util/json_text.h"
#include "util/text.h"

namespace kftrain::cli::data {
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

std::string utc_time(int64_t seconds) {
    std::time_t t = static_cast<std::time_t>(seconds);
    std::tm tm{};
    gmtime_r(&t, &tm);
    char text[32];
    std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &tm);
    return text;
}

nlohmann::json listing_json(const Listing& listing) {
    nlohmann::json entries = nlohmann::json::array();
    for (const auto& e : listing.entries) {
        entries.push_back({{"path", e.path},
                           {"type", e.type},
                           {"size", e.size},
                           {"modified", utc_time(e.modified)}});
    }
    nlohmann::json doc = {{"claim", listing.claim}, {"path", listing.path}};
    if (!listing.local_path.empty()) {
        doc["localPath"] = listing.local_path;
    }
    doc["files"] = listing.files();
    doc["bytes"] = listing.bytes();
    doc["entries"] = entries;
    return doc;
}

YAML::Node listing_yaml(const Listing& listing) {
    YAML::Node doc;
    doc["claim"] = listing.claim;
    doc["path"] = listing.path;
    if (!listing.local_path.empty()) {
        doc["localPath"] = listing.local_path;
    }
    doc["files"] = listing.files();
    doc["bytes"] = listing.bytes();
    doc["entries"] = YAML::Node(YAML::NodeType::Sequence);
    for (const auto& e : listing.entries) {
        YAML::Node entry;
        entry["path"] = e.path;
        entry["type"] = e.type;
        entry["size"] = e.size;
        entry["modified"] = utc_time(e.modified);
        doc["entries"].push_back(entry);
    }
    return doc;
}

}  // namespace

size_t Listing::files() const {
    return static_cast<size_t>(std::count_if(entries.begin(), entries.end(),
                                             [](const Entry& e) { return e.type != "directory"; }));
}

uint64_t Listing::bytes() const {
    uint64_t total = 0;
    for (const auto& e : entries) {
        total += e.type == "file" ? e.size : 0;
    }
    return total;
}

Listing parse_stat_lines(const std::string& text, const std::string& base) {
    Listing listing;
    for (const auto& line : util::split_lines(text)) {
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

void print_listing(const Listing& listing, view::OutputFormat format, std::ostream& out) {
    if (format == view::OutputFormat::Json) {
        out << util::json_text(listing_json(listing), 4) << "\n";
        return;
    }
    if (format == view::OutputFormat::Yaml) {
        YAML::Emitter emitter;
        emitter << listing_yaml(listing);
        out << emitter.c_str() << "\n";
        return;
    }
    view::TextTable table({"PATH", "TYPE", "SIZE", "MODIFIED"});
    for (const auto& e : listing.entries) {
        table.add_row({e.type == "directory" ? e.path + "/" : e.path, e.type,
                       e.type == "directory" ? "" : format_bytes(e.size), utc_time(e.modified)});
    }
    table.print(out);
    out << fmt::format("{}, {} in {}{}\n", util::counted(listing.files(), "file"),
                       format_bytes(listing.bytes()), listing.claim,
                       listing.path == "/" ? ":/" : ":" + listing.path);
}

}  // namespace kftrain::cli::data
