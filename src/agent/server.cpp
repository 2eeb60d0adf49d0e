#include "agent/server.h"

#include <fmt/format.h>
#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <climits>

#include "agent/tools.h"
#include "mcp/masking.h"
#include "mcp/protocol.h"
#include "util/redact.h"
#include "util/signals/interrupt.h"

namespace kftrain::agent {
namespace {

using json = nlohmann::json;
namespace proto = kftrain::mcp;

// Calls that may run at once; one more is refused until one ends.
constexpr size_t k_max_calls = 16;
// How often the reader looks at signals and finished calls while the client is quiet.
constexpr int k_poll_ms = 200;
// How long a client may leave the server's output unread before the server gives up on it.
constexpr std::chrono::seconds k_stalled_client{30};
// How long the calls in flight may still take to answer once the input has ended.
constexpr std::chrono::seconds k_finish_grace{10};
// Longest progress message sent: a verb's line, cut.
constexpr size_t k_max_progress_text = 500;

std::string id_key(const json& id) {
    return id.dump();
}

}  // namespace

Server::Server(ServerPolicy policy, proto::ServerDescription description, const ChildRunner& runner,
               int in_fd, int out_fd, std::ostream& err)
    : m_policy(std::move(policy)),
      m_description(std::move(description)),
      m_tools(proto::tool_catalog({m_policy.read_only, m_policy.local})),
      m_runner(runner),
      m_in_fd(in_fd),
      m_out_fd(out_fd),
      m_err(err) {}

Server::~Server() {
    reap(true);
}

bool Server::write(const json& message) {
    const std::string line = proto::to_line(message);
    std::lock_guard<std::mutex> lock(m_write_mutex);
    // Wait for room before each piece of at most PIPE_BUF bytes, which then never blocks: a
    // client that stops reading is given up on after k_stalled_client, or at a signal, instead
    // of holding every thread for ever.
    auto deadline = std::chrono::steady_clock::now() + k_stalled_client;
    size_t written = 0;
    while (written < line.size() && !m_output_gone) {
        pollfd p{m_out_fd, POLLOUT, 0};
        int ready = ::poll(&p, 1, k_poll_ms);
        if (ready < 0 && errno != EINTR) {
            m_output_gone = true;
        } else if (ready > 0 && (p.revents & (POLLERR | POLLHUP | POLLNVAL)) != 0) {
            m_output_gone = true;  // the client closed its end
        } else if (ready > 0) {
            size_t piece = std::min(line.size() - written, size_t{PIPE_BUF});
            ssize_t n = ::write(m_out_fd, line.data() + written, piece);
            if (n > 0) {
                written += static_cast<size_t>(n);
                deadline = std::chrono::steady_clock::now() + k_stalled_client;
            } else if (n < 0 && errno != EINTR && errno != EAGAIN) {
                m_output_gone = true;
            }
        } else if (util::interrupt_requested() || std::chrono::steady_clock::now() >= deadline) {
            m_err << "kftrain mcp: the client stopped reading; giving up on it" << std::endl;
            m_output_gone = true;
        }
    }
    return !m_output_gone;
}

int Server::serve() {
    std::string line;
    bool too_long = false;
    char chunk[65536];
    auto end_line = [&] {
        if (too_long) {
            write(proto::error_message(
                nullptr, proto::error::k_parse_error,
                fmt::format("message longer than {} bytes", proto::k_max_message_bytes)));
        } else if (!line.empty() && line != "\r") {
            handle_line(line);
        }
        line.clear();
        too_long = false;
    };
    while (!m_output_gone) {
        if (util::interrupt_requested()) {
            reap(true);
            return 130;
        }
        pollfd p{m_in_fd, POLLIN, 0};
        int ready = ::poll(&p, 1, k_poll_ms);
        reap(false);
        if (ready <= 0) {
            continue;  // a quiet moment, or EINTR: look at signals again
        }
        ssize_t n = ::read(m_in_fd, chunk, sizeof chunk);
        if (n < 0 && (errno == EINTR || errno == EAGAIN)) {
            continue;
        }
        if (n <= 0) {
            break;  // the client closed its end
        }
        for (ssize_t i = 0; i < n; ++i) {
            if (chunk[i] == '\n') {
                end_line();
            } else if (!too_long) {
                line.push_back(chunk[i]);
                if (line.size() > proto::k_max_message_bytes) {
                    too_long = true;  // answered at its end, read no further
                    line.clear();
                }
            }
        }
    }
    if (!m_output_gone && (!line.empty() || too_long)) {
        end_line();  // a last message without its newline
    }
    return finish_calls();
}

int Server::finish_calls() {
    // The client is shutting down (MCP's stdio transport ends a session by closing the
    // server's input): short calls still answer, a long one (a wait) is stopped.
    const auto deadline = std::chrono::steady_clock::now() + k_finish_grace;
    int code = 0;
    while (!output_closed() && std::chrono::steady_clock::now() < deadline) {
        if (util::interrupt_requested()) {
            code = 130;
            break;
        }
        reap(false);
        {
            std::lock_guard<std::mutex> lock(m_calls_mutex);
            if (m_calls.empty()) {
                break;
            }
        }
        ::poll(nullptr, 0, k_poll_ms);
    }
    reap(true);
    return code;
}

bool Server::output_closed() {
    pollfd p{m_out_fd, 0, 0};
    return m_output_gone ||
           (::poll(&p, 1, 0) > 0 && (p.revents & (POLLERR | POLLHUP | POLLNVAL)) != 0);
}

void Server::handle_line(std::string_view line) {
    if (!line.empty() && line.back() == '\r') {
        line.remove_suffix(1);
    }
    proto::Incoming message = proto::parse_message(line);
    if (message.kind == proto::Incoming::Kind::Request && in_flight(message.id)) {
        // Its id is taken: answering with it would give one id two responses.
        write(proto::error_message(
            nullptr, proto::error::k_invalid_request,
            fmt::format("request id {} is in use by a call in flight", message.id.dump())));
        return;
    }
    proto::Dispatch d = proto::dispatch(message, m_description, m_tools);
    if (d.reply) {
        write(*d.reply);
    }
    if (d.cancel_id) {
        cancel(*d.cancel_id);
    }
    if (d.call) {
        start_call(std::move(*d.call));
    }
}

void Server::start_call(proto::ToolCall call) {
    std::lock_guard<std::mutex> lock(m_calls_mutex);
    const std::string key = id_key(call.id);
    if (m_calls.size() >= k_max_calls) {
        write(proto::error_message(
            call.id, proto::error::k_internal_error,
            fmt::format("{} calls are in flight; wait for one to end", k_max_calls)));
        return;
    }
    auto state = std::make_unique<Call>();
    Call& ref = *state;
    state->thread = std::thread([this, call = std::move(call), &ref] { run_call(call, ref); });
    m_calls.emplace(key, std::move(state));
}

void Server::run_call(const proto::ToolCall& call, Call& state) {
    long long step = 0;
    auto progress = [&](const std::string& text) {
        if (!call.progress_token || state.cancelled) {
            return;
        }
        json params = {{"progressToken", *call.progress_token},
                       {"progress", ++step},
                       {"message", util::mask_secrets(text.substr(0, k_max_progress_text))}};
        write(proto::notification_message(proto::method::k_progress, std::move(params)));
    };
    CallContext ctx{m_policy, m_runner, state.cancelled, progress};
    json response;
    try {
        auto result = run_tool(call.tool, call.arguments, ctx);
        json content = result ? proto::tool_result(proto::mask_credentials(*result))
                              : proto::tool_error(util::mask_secrets(result.error()));
        response = proto::result_message(call.id, std::move(content));
    } catch (const std::exception& e) {
        m_err << fmt::format("kftrain mcp: {} failed: {}", call.tool, e.what()) << std::endl;
        response = proto::error_message(call.id, proto::error::k_internal_error,
                                        fmt::format("{} failed: {}", call.tool, e.what()));
    }
    std::lock_guard<std::mutex> lock(m_calls_mutex);
    if (!state.cancelled) {
        write(response);
    }
    state.done = true;
}

bool Server::in_flight(const json& id) {
    std::lock_guard<std::mutex> lock(m_calls_mutex);
    return m_calls.count(id_key(id)) != 0;
}

void Server::cancel(const json& id) {
    std::lock_guard<std::mutex> lock(m_calls_mutex);
    auto it = m_calls.find(id_key(id));
    if (it != m_calls.end()) {
        it->second->cancelled = true;  // its verb stops; no response is sent
    }
}

void Server::reap(bool stop_all) {
    std::vector<std::unique_ptr<Call>> ended;
    {
        std::lock_guard<std::mutex> lock(m_calls_mutex);
        for (auto it = m_calls.begin(); it != m_calls.end();) {
            if (stop_all) {
                it->second->cancelled = true;
            }
            if (stop_all || it->second->done) {
                ended.push_back(std::move(it->second));
                it = m_calls.erase(it);
            } else {
                ++it;
            }
        }
    }
    for (auto& call : ended) {
        if (call->thread.joinable()) {
            call->thread.join();
        }
    }
}

}  // namespace kftrain::agent
