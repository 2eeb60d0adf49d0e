#include "trainer/loop/progress.h"

#include <fmt/format.h>

#include <cmath>
#include <ctime>
#include <utility>

#include "util/text.h"
#include "wire/progress_events.h"

namespace kftrain::trainer {
namespace {

namespace field = wire::field;

double num(const Fields& f, const char* key) {
    const auto it = f.find(key);
    return it != f.end() && it->is_number() ? it->get<double>() : 0.0;
}

std::string str(const Fields& f, const char* key) {
    const auto it = f.find(key);
    if (it == f.end()) {
        return "";
    }
    return it->is_string() ? it->get<std::string>() : it->dump();
}

std::string text_start(const Fields& f) {
    const std::string resumed =
        f.value(field::k_resumed_from, Fields()).is_null()
            ? ""
            : fmt::format(", resumed from step {}", str(f, field::k_resumed_from));
    const auto bucket_bytes = f.value(field::k_bucket_bytes, Fields());
    const std::string buckets =
        bucket_bytes.is_number()
            ? fmt::format(" buckets {:.2f} MiB", bucket_bytes.get<double>() / (1024.0 * 1024.0))
            : "";
    const std::string format = str(f, field::k_memory_format);
    const std::string layout = format.empty() ? "" : " " + format;
    return fmt::format(
        "start: model {} dataset {} epochs {} batch {} (global {}) lr {:.6g} backend {} "
        "device {}{} threads {}{} samples {} steps/epoch {}{}",
        str(f, field::k_model), str(f, field::k_dataset), str(f, field::k_epochs),
        str(f, field::k_batch_size), str(f, field::k_global_batch_size), num(f, field::k_lr),
        str(f, field::k_backend), str(f, field::k_device), layout, str(f, field::k_threads),
        buckets, str(f, field::k_samples), str(f, field::k_steps_per_epoch), resumed);
}

std::string text_progress(const Fields& f) {
    return fmt::format(
        "epoch {}/{} step {}/{} (global {}): loss {:.4f} accuracy {:.2f}% {:.1f} samples/s "
        "lr {:.6g} elapsed {:.1f}s eta {:.1f}s",
        str(f, field::k_epoch), str(f, field::k_epochs), str(f, field::k_step),
        str(f, field::k_steps_per_epoch), str(f, field::k_global_step), num(f, field::k_loss),
        100 * num(f, field::k_accuracy), num(f, field::k_samples_per_sec), num(f, field::k_lr),
        num(f, field::k_elapsed_s), num(f, field::k_eta_s));
}

std::string text_epoch(const Fields& f) {
    return fmt::format(
        "epoch {}/{} done: loss {:.4f} accuracy {:.2f}% {:.1f} samples/s epoch time {:.1f}s "
        "elapsed {:.1f}s eta {:.1f}s",
        str(f, field::k_epoch), str(f, field::k_epochs), num(f, field::k_loss),
        100 * num(f, field::k_accuracy), num(f, field::k_samples_per_sec),
        num(f, field::k_epoch_time_s), num(f, field::k_elapsed_s), num(f, field::k_eta_s));
}

std::string text_eval(const Fields& f) {
    return fmt::format("eval epoch {}: loss {:.4f} accuracy {:.2f}% on {} samples",
                       str(f, field::k_epoch), num(f, field::k_loss),
                       100 * num(f, field::k_accuracy), str(f, field::k_samples));
}

std::string text_checkpoint(const Fields& f) {
    return fmt::format("checkpoint at epoch {} step {}: {}", str(f, field::k_epoch),
                       str(f, field::k_global_step), str(f, field::k_path));
}

std::string text_checkpoint_failed(const Fields& f) {
    const auto last = f.value(field::k_last_checkpoint_step, Fields());
    return fmt::format("checkpoint at epoch {} step {} NOT written: {}; {}", str(f, field::k_epoch),
                       str(f, field::k_global_step), str(f, field::k_message),
                       last.is_null() ? std::string("none is written yet")
                                      : "the newest written is step " + last.dump());
}

std::string text_finish(const Fields& f) {
    return fmt::format(
        "finish: {}, {}, loss {:.4f} accuracy {:.2f}% {:.1f} samples/s elapsed {:.1f}s",
        util::counted(static_cast<long long>(num(f, field::k_epochs)), "epoch"),
        util::counted(static_cast<long long>(num(f, field::k_global_step)), "step"),
        num(f, field::k_loss), 100 * num(f, field::k_accuracy), num(f, field::k_samples_per_sec),
        num(f, field::k_elapsed_s));
}

std::string text_body(const std::string& event, const Fields& f) {
    using Format = std::string (*)(const Fields&);
    const std::pair<const char*, Format> formats[] = {
        {wire::event::k_start, text_start},
        {wire::event::k_progress, text_progress},
        {wire::event::k_epoch, text_epoch},
        {wire::event::k_eval, text_eval},
        {wire::event::k_checkpoint, text_checkpoint},
        {wire::event::k_finish, text_finish},
        {wire::event::k_checkpoint_failed, text_checkpoint_failed},
    };
    for (const auto& [name, format] : formats) {
        if (event == name) {
            return format(f);
        }
    }
    return fmt::format("{}: {}", event, str(f, field::k_message));
}

}  // namespace

std::string iso_time_utc(std::chrono::system_clock::time_point t) {
    using namespace std::chrono;
    const auto ms = duration_cast<milliseconds>(t.time_since_epoch()).count();
    const std::time_t secs = static_cast<std::time_t>(ms / 1000);
    std::tm tm{};
    gmtime_r(&secs, &tm);
    return fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:03}Z", tm.tm_year + 1900,
                       tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, ms % 1000);
}

std::string format_event_json(const std::string& event, int rank, int world,
                              const std::string& time, const Fields& fields) {
    Fields line;
    line[field::k_event] = event;
    line[field::k_rank] = rank;
    line[field::k_world_size] = world;
    line[field::k_time] = time;
    for (const auto& [key, value] : fields.items()) {
        line[key] = value;
    }
    return line.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

std::string format_event_text(const std::string& event, int rank, int world, const Fields& fields) {
    return fmt::format("[rank {}/{}] {}", rank, world, text_body(event, fields));
}

std::string format_metric_line(double accuracy, double loss) {
    std::string line;
    for (const auto& [name, value] :
         {std::pair{field::k_accuracy, accuracy}, std::pair{field::k_loss, loss}}) {
        if (std::isfinite(value)) {
            line += fmt::format("{}{}={:.6f}", line.empty() ? "" : " ", name, value);
        }
    }
    return line;
}

bool rank_prints(const std::string& event, int rank) {
    return rank == 0 || event == wire::event::k_start || event == wire::event::k_warning ||
           event == wire::event::k_error;
}

ProgressLog::ProgressLog(std::ostream& out, std::ostream& err, bool json, int rank, int world,
                         Clock clock)
    : m_out(out), m_err(err), m_json(json), m_rank(rank), m_world(world), m_clock(clock) {}

void ProgressLog::emit(const std::string& event, const Fields& fields) {
    if (rank_prints(event, m_rank)) {
        print(event, fields);
    }
    if (m_listener) {
        m_listener(event, fields);  // outside the lock: a listener may emit a warning
    }
}

void ProgressLog::print_metrics(double accuracy, double loss) {
    const auto line = format_metric_line(accuracy, loss);
    if (m_rank != 0 || line.empty()) {
        return;
    }
    std::lock_guard<std::mutex> lock(m_mutex);
    // Katib's collector takes a leading RFC 3339 token as the values' time; without one it logs
    // a warning per line and stamps every value with the zero time.
    m_out << iso_time_utc(m_clock()) << ' ' << line << std::endl;
}

void ProgressLog::print(const std::string& event, const Fields& fields) {
    std::lock_guard<std::mutex> lock(m_mutex);
    if (m_json) {
        m_out << format_event_json(event, m_rank, m_world, iso_time_utc(m_clock()), fields)
              << std::endl;
        return;
    }
    const bool to_err = event == wire::event::k_error || event == wire::event::k_warning;
    auto& stream = to_err ? m_err : m_out;
    stream << format_event_text(event, m_rank, m_world, fields) << std::endl;
}

}  // namespace kftrain::trainer
