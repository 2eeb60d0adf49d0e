#include "backend/local/state/log_store.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#include "backend/local/state/state_dir.h"
#include "job/status.h"
#include "util/files.h"
#include "util/process_info.h"
#include "util/time_text.h"

namespace kftrain::backend::local {
namespace {

util::UniqueFd open_append(const std::string& path) {
    return util::UniqueFd(::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600));
}

}  // namespace

LogWriter::LogWriter(const std::string& job)
    : m_dir(logs_dir(job)), m_all_path(combined_log_path(job)), m_all(open_append(m_all_path)) {}

// What cannot be written is dropped (the replica goes on), and the first failure is kept.
void LogWriter::append_to(const util::UniqueFd& log, const std::string& path,
                          const std::string& text) {
    if (!log) {
        if (m_error.empty()) {
            m_error = "cannot open " + path + " for writing";
        }
        return;
    }
    if (auto written = util::write_all(log.get(), text, path); !written && m_error.empty()) {
        m_error = written.error();
    }
}

void LogWriter::append(const std::string& replica, const std::string& text) {
    const std::string own = m_dir + "/" + replica + ".log";
    auto it = m_files.find(replica);
    if (it == m_files.end()) {
        it = m_files.emplace(replica, open_append(own)).first;
    }
    append_to(it->second, own, text + "\n");
    // Milliseconds, as kubectl's: the measurement times text progress by its lines.
    const std::string now =
        util::format_timestamp_ms(static_cast<double>(util::now_nanoseconds()) / 1e9);
    append_to(m_all, m_all_path, now + "\t" + replica + "\t" + text + "\n");
}

std::optional<LogRecord> parse_log_record(const std::string& line) {
    auto first = line.find('\t');
    if (first == std::string::npos) {
        return std::nullopt;
    }
    auto second = line.find('\t', first + 1);
    if (second == std::string::npos) {
        return std::nullopt;
    }
    return LogRecord{line.substr(0, first), line.substr(first + 1, second - first - 1),
                     line.substr(second + 1)};
}

bool replica_matches(const std::string& filter, const std::string& replica) {
    job::ReplicaStatus status;
    status.name = replica;
    status.type = replica.substr(0, replica.rfind('-'));  // worker-3: worker
    return job::replica_matches(status, filter);
}

bool record_selected(const LogRecord& record, const job::LogOptions& options,
                     std::time_t since_time) {
    if (!replica_matches(options.replica, record.replica)) {
        return false;
    }
    if (since_time == 0) {
        return true;
    }
    auto when = util::parse_timestamp(record.time);
    return when && *when >= since_time;
}

bool in_attempt(const LogRecord& record, const std::map<std::string, AttemptWindow>& windows) {
    const auto window = windows.find(record.replica);
    if (window == windows.end()) {
        return false;
    }
    const auto when = util::parse_timestamp(record.time);
    const auto started = util::parse_timestamp(window->second.started);
    const auto finished = util::parse_timestamp(window->second.finished);
    return when && started && *when >= *started && (!finished || *when <= *finished);
}

std::vector<LogRecord> tail_per_replica(const std::vector<LogRecord>& records, int n) {
    std::map<std::string, int> remaining;
    std::vector<bool> keep(records.size(), false);
    for (size_t i = records.size(); i-- > 0;) {
        auto [it, inserted] = remaining.emplace(records[i].replica, n);
        if (it->second > 0) {
            keep[i] = true;
            --it->second;
        }
    }
    std::vector<LogRecord> out;
    for (size_t i = 0; i < records.size(); ++i) {
        if (keep[i]) {
            out.push_back(records[i]);
        }
    }
    return out;
}

job::LogLine to_log_line(const LogRecord& record, bool timestamps) {
    return job::LogLine{record.replica, timestamps ? record.time + " " + record.text : record.text};
}

std::vector<LogRecord> LogCursor::next() {
    std::vector<LogRecord> records;
    if (!m_fd) {
        // The log kftrain writes is a regular file: a link, FIFO or device put in its place
        // (to /dev/zero, say) is not read, nor waited on.
        m_fd.reset(::open(m_path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK));
        struct stat info {};
        if (m_fd && (::fstat(m_fd.get(), &info) != 0 || !S_ISREG(info.st_mode))) {
            m_fd.reset();
        }
    }
    struct stat now {};
    if (m_fd && ::fstat(m_fd.get(), &now) == 0 && now.st_size < ::lseek(m_fd.get(), 0, SEEK_CUR)) {
        ::lseek(m_fd.get(), 0, SEEK_SET);  // cut short (truncated): what it holds now is all new
        m_partial.clear();
    }
    char buffer[65536];
    m_caught_up = !m_fd;
    for (size_t taken = 0; m_fd && taken < k_max_read;) {
        ssize_t n = ::read(m_fd.get(), buffer, sizeof(buffer));
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {
            m_caught_up = true;
            break;
        }
        taken += static_cast<size_t>(n);
        m_partial.append(buffer, static_cast<size_t>(n));
    }
    size_t start = 0;
    for (size_t nl; (nl = m_partial.find('\n', start)) != std::string::npos;) {
        auto record = parse_log_record(m_partial.substr(start, nl - start));
        if (record) {
            records.push_back(std::move(*record));
        }
        start = nl + 1;
    }
    m_partial.erase(0, start);
    if (m_partial.size() > k_max_read) {
        m_partial.clear();  // no line kftrain writes is this long: not its log
    }
    return records;
}

}  // namespace kftrain::backend::local
