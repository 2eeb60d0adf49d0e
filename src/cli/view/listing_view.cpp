#include "cli/view/listing_view.h"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <ctime>
#include <nlohmann/json.hpp>

#include "util/json_text.h"
#include "util/text.h"
#include "util/text_table.h"

namespace kftrain::cli::view {
namespace {

using job::Listing;

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
        if (!e.link.empty()) {
            entries.back()["target"] = e.link;
        }
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
        if (!e.link.empty()) {
            entry["target"] = e.link;
        }
        doc["entries"].push_back(entry);
    }
    return doc;
}

}  // namespace

void print_listing(const Listing& listing, OutputFormat format, std::ostream& out) {
    if (format == OutputFormat::Json) {
        out << util::json_text(listing_json(listing), 4) << "\n";
        return;
    }
    if (format == OutputFormat::Yaml) {
        YAML::Emitter emitter;
        emitter << listing_yaml(listing);
        out << emitter.c_str() << "\n";
        return;
    }
    util::TextTable table({"PATH", "TYPE", "SIZE", "MODIFIED"});
    for (const auto& e : listing.entries) {
        // A link as itself: its name and what it holds, each escaped (the table escapes the
        // whole cell, and the " -> " stays readable).
        const std::string shown = e.type == "directory" ? e.path + "/"
                                  : e.link.empty()      ? e.path
                                                        : e.path + " -> " + e.link;
        table.add_row({shown, e.type, e.type == "directory" ? "" : staging::format_bytes(e.size),
                       utc_time(e.modified)});
    }
    table.print(out);
    out << fmt::format("{}, {} in {}{}\n", util::counted(listing.files(), "file"),
                       staging::format_bytes(listing.bytes()), listing.claim,
                       listing.path == "/" ? ":/" : ":" + listing.path);
}

}  // namespace kftrain::cli::view
