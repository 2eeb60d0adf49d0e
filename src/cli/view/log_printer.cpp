#include "cli/view/log_printer.h"

#include <fmt/format.h>

#include "cli/view/log_line.h"
#include "util/terminal.h"

namespace kftrain::cli::view {

LogPrinter::LogPrinter(std::ostream& out, std::ostream& err, LogPrintOptions options)
    : m_out(out), m_err(err), m_options(options) {
    if (m_options.live && !m_options.raw) {
        m_live.emplace(m_options.prefix_width);
        m_redraw = std::thread([this] { redraw_while_live(); });
    }
}

LogPrinter::~LogPrinter() {
    finish();
}

void LogPrinter::write_out(const std::string& text) {
    if (!text.empty()) {
        m_out << text;
        m_out.flush();
    }
}

void LogPrinter::print(const job::LogLine& line) {
    std::lock_guard<std::mutex> lock(m_mutex);
    if (line.notice) {
        if (m_live) {
            write_out(m_live->clear());
        }
        m_err << fmt::format("kftrain: {}: {}", line.replica, line.text) << std::endl;
        if (m_live) {
            write_out(m_live->render(util::terminal_width(m_out), LiveProgress::Clock::now()));
        }
        return;
    }
    if (m_live) {
        m_live->take(line);
        write_out(m_live->render(util::terminal_width(m_out), LiveProgress::Clock::now()));
        return;
    }
    m_out << format_log_line(line, m_options.raw, m_options.prefix_width) << "\n";
    if (m_options.flush_each) {
        m_out.flush();
    }
}

void LogPrinter::show_posted(const job::Progress& posted) {
    std::lock_guard<std::mutex> lock(m_mutex);
    if (m_live) {
        m_live->take_posted(posted);
        write_out(m_live->render(util::terminal_width(m_out), LiveProgress::Clock::now()));
    }
}

void LogPrinter::redraw_while_live() {
    std::unique_lock<std::mutex> lock(m_mutex);
    while (!m_finished) {
        m_wake.wait_for(lock, LiveProgress::k_redraw_interval);
        if (!m_finished) {
            write_out(m_live->render(util::terminal_width(m_out), LiveProgress::Clock::now()));
        }
    }
}

void LogPrinter::finish() {
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        if (m_finished) {
            return;
        }
        m_finished = true;
        if (m_live) {
            write_out(m_live->finish(util::terminal_width(m_out)));
            m_live.reset();  // later lines, if any, print plainly
        }
        m_out.flush();
    }
    m_wake.notify_all();
    if (m_redraw.joinable()) {
        m_redraw.join();
    }
}

bool wants_live_progress(const std::ostream& out, bool no_progress, bool raw) {
    return !no_progress && !raw && util::is_live_terminal(out);
}

}  // namespace kftrain::cli::view
