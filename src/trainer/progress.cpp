#include "trainer/progress.h"

#include <fmt/format.h>

#include <ctime>

namespace kftrain::trainer {
namespace {

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

std::string text_body(const std::string& event, const Fields& f) {
    if (event == "start") {
        std::string resumed = f.value("resumed_from", Fields()).is_null()
                                  ? ""
                                  : fmt::format(", resumed from step {}", str(f, "resumed_from"));
        return fmt::format(
            "start: model {} dataset {} epochs {} batch {} (global {}) lr {:.6g} backend {} "
            "device {} threads {} samples {} steps/epoch {}{}",
            str(f, "model"), str(f, "dataset"), str(f, "epochs"), str(f, "batch_size"),
            str(f, "global_batch_size"), num(f, "lr"), str(f, "backend"), str(f, "device"),
            str(f, "threads"), str(f, "samples"), str(f, "steps_per_epoch"), resumed);
    }
    if (event == "progress") {
        return fmt::format(
            "epoch {}/{} step {}/{} (global {}): loss {:.4f} accuracy {:.2f}% {:.1f} samples/s "
            "lr {:.6g} elapsed {:.1f}s eta {:.1f}s",
            str(f, "epoch"), str(f, "epochs"), str(f, "step"), str(f, "steps_per_epoch"),
            str(f, "global_step"), num(f, "loss"), 100 * num(f, "accuracy"),
            num(f, "samples_per_sec"), num(f, "lr"), num(f, "elapsed_s"), num(f, "eta_s"));
    }
    if (event == "epoch") {
        return fmt::format(
            "epoch {}/{} done: loss {:.4f} accuracy {:.2f}% {:.1f} samples/s epoch time {:.1f}s "
            "elapsed {:.1f}s eta {:.1f}s",
            str(f, "epoch"), str(f, "epochs"), num(f, "loss"), 100 * num(f, "accuracy"),
            num(f, "samples_per_sec"), num(f, "epoch_time_s"), num(f, "elapsed_s"),
            num(f, "eta_s"));
    }
    if (event == "eval") {
        return fmt::format("eval epoch {}: loss {:.4f} accuracy {:.2f}% on {} samples",
                           str(f, "epoch"), num(f, "loss"), 100 * num(f, "accuracy"),
                           str(f, "samples"));
    }
    if (event == "checkpoint") {
        return fmt::format("checkpoint at epoch {} step {}: {}", str(f, "epoch"),
                           str(f, "global_step"), str(f, "path"));
    }
    if (event == "finish") {
        return fmt::format(
            "finish: {} epochs, {} steps, loss {:.4f} accuracy {:.2f}% {:.1f} samples/s "
            "elapsed {:.1f}s",
            str(f, "epochs"), str(f, "global_step"), num(f, "loss"), 100 * num(f, "accuracy"),
            num(f, "samples_per_sec"), num(f, "elapsed_s"));
    }
    return fmt::format("{}: {}", event, str(f, "message"));
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
    line["event"] = event;
    line["rank"] = rank;
    line["world_size"] = world;
    line["time"] = time;
    for (const auto& [key, value] : fields.items()) {
        line[key] = value;
    }
    return line.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

std::string format_event_text(const std::string& event, int rank, int world, const Fields& fields) {
    return fmt::format("[rank {}/{}] {}", rank, world, text_body(event, fields));
}

bool rank_prints(const std::string& event, int rank) {
    return rank == 0 || event == "start" || event == "warning" || event == "error";
}

ProgressLog::ProgressLog(std::ostream& out, std::ostream& err, bool json, int rank, int world,
                         Clock clock)
    : m_out(out), m_err(err), m_json(json), m_rank(rank), m_world(world), m_clock(clock) {}

void ProgressLog::emit(const std::string& event, const Fields& fields) {
    if (!rank_prints(event, m_rank)) {
        return;
    }
    std::lock_guard<std::mutex> lock(m_mutex);
    if (m_json) {
        m_out << format_event_json(event, m_rank, m_world, iso_time_utc(m_clock()), fields)
              << std::endl;
        return;
    }
    auto& stream = (event == "error" || event == "warning") ? m_err : m_out;
    stream << format_event_text(event, m_rank, m_world, fields) << std::endl;
}

}  // namespace kftrain::trainer
