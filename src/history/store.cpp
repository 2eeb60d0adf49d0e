#include "history/store.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>

#include "state/state_files.h"
#include "util/bounded_read.h"
#include "util/fd/unique_fd.h"
#include "util/files.h"
#include "util/json_text.h"
#include "util/time_text.h"

namespace kftrain::history {
namespace {

namespace fs = std::filesystem;

constexpr const char* k_history_folder = "history";
constexpr const char* k_record_suffix = ".jsonl";
constexpr std::size_t k_max_folder_name = 200;

bool plain_char(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
           c == '_' || c == '.';
}

// Return text as one file name: plain characters kept, every other byte (and a leading dot,
// so that no name is "." or ".." or hidden) as %XX; "%" alone for the empty text, which no
// other text escapes to.
std::string file_name_of(const std::string& text) {
    if (text.empty()) {
        return "%";
    }
    std::string out;
    for (std::size_t i = 0; i < text.size() && out.size() < k_max_folder_name; ++i) {
        const char c = text[i];
        if (plain_char(c) && !(i == 0 && c == '.')) {
            out += c;
        } else {
            out += fmt::format("%{:02X}", static_cast<unsigned char>(c));
        }
    }
    return out;
}

// Read the first line of a file, at most k_max_summary_bytes of it.
util::Result<std::string> first_line_of(const std::string& path) {
    util::UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK));
    if (!fd) {
        return util::error(fmt::format("{}: cannot read: {}", path, std::strerror(errno)));
    }
    std::string line;
    char buffer[16384];
    while (line.size() < k_max_summary_bytes) {
        const ssize_t n = ::read(fd.get(), buffer, sizeof buffer);
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {
            break;
        }
        const auto* end = static_cast<const char*>(std::memchr(buffer, '\n', n));
        line.append(buffer, end == nullptr ? n : end - buffer);
        if (end != nullptr) {
            return line;
        }
    }
    return util::error(fmt::format("{}: its first line is not a record's summary", path));
}

// Return whether the record at path is partial (its first line says so).
bool partial_at(const std::string& path) {
    auto line = first_line_of(path);
    const nlohmann::json head = line ? util::parse_untrusted_json(*line) : nlohmann::json(nullptr);
    return head.is_object() && head.value("partial", false) == true;
}

double time_of(const std::string& timestamp) {
    return util::parse_timestamp_seconds(timestamp).value_or(0);
}

bool newer(const Listed& a, const Listed& b) {
    const double fa = time_of(a.summary.finished);
    const double fb = time_of(b.summary.finished);
    if (fa != fb) {
        return fa > fb;
    }
    return time_of(a.summary.recorded) > time_of(b.summary.recorded);
}

bool matches(const Summary& s, const Filter& f) {
    if (!f.name.empty() && s.name != f.name) {
        return false;
    }
    const auto finished = util::parse_timestamp_seconds(s.finished);
    return f.since <= 0 || !finished || *finished >= f.since;
}

// List the records in one namespace's folder.
void list_folder(const fs::path& folder, const Filter& filter, Listing& out) {
    std::error_code ec;
    for (fs::directory_iterator it(folder, ec), end; !ec && it != end; it.increment(ec)) {
        const std::string file = it->path().filename().string();
        if (!it->is_regular_file(ec) || file.size() <= std::strlen(k_record_suffix) ||
            file.compare(file.size() - 6, 6, k_record_suffix) != 0) {
            continue;
        }
        if (!filter.name.empty() && file.rfind(file_name_of(filter.name) + ".", 0) != 0) {
            continue;
        }
        const std::string path = it->path().string();
        auto line = first_line_of(path);
        const nlohmann::json head =
            line ? util::parse_untrusted_json(*line) : nlohmann::json(nullptr);
        if (!head.is_object()) {
            out.unreadable.push_back(line ? path + ": its first line is not a record's summary"
                                          : line.error_value().message);
            continue;
        }
        Listed listed;
        listed.path = path;
        listed.summary = summary_from_json(head, listed.damaged);
        if (matches(listed.summary, filter)) {
            out.records.push_back(std::move(listed));
        }
    }
}

// Return the folders below root to look in: the one named, or every one.
std::vector<fs::path> folders(const fs::path& root, const std::string& wanted, bool named) {
    std::vector<fs::path> out;
    if (named) {
        out.push_back(root / file_name_of(wanted));
        return out;
    }
    std::error_code ec;
    for (fs::directory_iterator it(root, ec), end; !ec && it != end; it.increment(ec)) {
        if (it->is_directory(ec)) {
            out.push_back(it->path());
        }
    }
    return out;
}

}  // namespace

std::string history_root() {
    return state::state_folder(k_history_folder);
}

std::string record_path(const RecordKey& key) {
    return fmt::format("{}/{}/{}/{}.{}{}", history_root(), file_name_of(key.context),
                       file_name_of(key.namespace_), file_name_of(key.name), file_name_of(key.uid),
                       k_record_suffix);
}

bool has_record(const RecordKey& key, bool complete) {
    const std::string path = record_path(key);
    std::error_code ec;
    if (!fs::exists(path, ec)) {
        return false;
    }
    return !complete || !partial_at(path);
}

util::Result<Written> write_record(const Record& record) {
    const Summary& s = record.summary;
    const std::string path = record_path({s.context, s.namespace_, s.name, s.uid});
    const auto fail = [&](const std::string& why) {
        return util::error(
            fmt::format("cannot keep the record of {}/{}: {}", s.namespace_, s.name, why));
    };
    if (auto made = util::make_private_dir(fs::path(path).parent_path().string()); !made) {
        return fail(made.error_value().message);
    }
    Record masked = record;
    mask_record(masked);
    auto written = util::write_file_once(path, record_lines(masked));
    if (!written) {
        return fail(written.error_value().message);
    }
    if (*written) {
        return Written::Kept;
    }
    if (s.partial || !partial_at(path)) {
        return Written::AlreadyKept;
    }
    if (auto replaced = util::write_file_atomic(path, record_lines(masked)); !replaced) {
        return fail(replaced.error_value().message);
    }
    return Written::Kept;
}

Listing list_records(const Filter& filter) {
    Listing out;
    const fs::path root = history_root();
    for (const fs::path& context : folders(root, filter.context, !filter.context.empty())) {
        for (const fs::path& ns : folders(context, filter.namespace_, !filter.namespace_.empty())) {
            list_folder(ns, filter, out);
        }
    }
    std::stable_sort(out.records.begin(), out.records.end(), newer);
    return out;
}

util::Result<Record> read_record(const std::string& path) {
    std::error_code ec;
    if (!fs::exists(path, ec)) {
        return util::error(fmt::format("{}: no such record", path), 3);
    }
    auto text = util::read_file(path, k_max_record_bytes);
    if (!text) {
        return util::error(text.error_value().message, 4);
    }
    auto record = parse_record(*text);
    if (!record) {
        return util::error(fmt::format("{}: {}", path, record.error_value().message), 4);
    }
    return record;
}

std::optional<std::string> newest_record(const std::string& context, const std::string& ns,
                                         const std::string& name) {
    Listing listing = list_records({context, ns, name, 0});
    if (listing.records.empty()) {
        return std::nullopt;
    }
    return listing.records.front().path;
}

}  // namespace kftrain::history
