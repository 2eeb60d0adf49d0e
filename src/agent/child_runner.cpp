#include "agent/child_runner.h"

#include <cstring>
#include <sstream>

#include "util/run.h"
#include "util/text.h"

namespace kftrain::agent {
namespace {

constexpr const char* k_error_prefix = "kftrain: error: ";
constexpr size_t k_max_output = size_t{64} << 20;
constexpr size_t k_max_error = size_t{1} << 20;

}  // namespace

std::string ChildOutcome::message() const {
    std::istringstream lines(err);
    std::string line;
    std::string errors;
    while (std::getline(lines, line)) {
        if (line.rfind(k_error_prefix, 0) == 0) {
            errors += (errors.empty() ? "" : "\n") + line.substr(std::strlen(k_error_prefix));
        }
    }
    if (!errors.empty()) {
        return errors;
    }
    std::string text = util::trim(err);
    if (!text.empty()) {
        return text;
    }
    return "kftrain ended with exit code " + std::to_string(code);
}

util::Result<ChildOutcome> ChildRunner::run(const ChildRequest& request,
                                            const std::atomic<bool>& cancelled) const {
    util::RunOptions options;
    options.argv = {m_kftrain};
    options.argv.insert(options.argv.end(), request.args.begin(), request.args.end());
    options.argv.insert(options.argv.end(), m_global_args.begin(), m_global_args.end());
    options.cwd = m_cwd;
    options.input = request.input;
    options.timeout = request.timeout;
    options.cancel_grace = request.grace;
    options.cancelled = [&cancelled] { return cancelled.load(); };
    options.max_out = k_max_output;
    std::string err;  // stderr, kept for the message also when its lines are streamed
    util::LineCallback on_err;
    if (request.on_err) {
        on_err = [&](const std::string& line) {
            if (err.size() < k_max_error) {
                err += line + "\n";
            }
            request.on_err(line);
        };
    }
    auto result = request.on_out || on_err ? util::run_streaming(options, request.on_out, on_err)
                                           : util::run(options);
    if (!result) {
        return result.error_value();
    }
    ChildOutcome outcome;
    outcome.code = result->status.as_shell_code();
    outcome.out = std::move(result->out);
    outcome.err = on_err ? std::move(err) : std::move(result->err);
    outcome.cancelled = result->cancelled;
    outcome.timed_out = result->timed_out;
    outcome.out_overflow = result->out_overflow;
    return outcome;
}

}  // namespace kftrain::agent
