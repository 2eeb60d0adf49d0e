#pragma once

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "agent/child_runner.h"
#include "agent/policy.h"
#include "mcp/session.h"
#include "mcp/tool_catalog.h"

namespace kftrain::agent {

// The MCP server on two file descriptors: it reads one JSON-RPC message a line from in_fd and
// writes responses and notifications to out_fd, one writer for every thread. Each tools/call
// runs on a thread of its own, so a slow tool never holds up ping or a cancellation; a
// cancelled call's verb is stopped (its process group, after a grace for what it started) and
// the call gets no response.
class Server {
  public:
    Server(ServerPolicy policy, kftrain::mcp::ServerDescription description,
           const ChildRunner& runner, int in_fd, int out_fd, std::ostream& err);
    ~Server();
    Server(const Server&) = delete;
    Server& operator=(const Server&) = delete;

    // Serve until the input ends or the output goes away (0), or a SIGINT, SIGTERM or SIGHUP
    // arrives (130). At the end of the input, the calls in flight have 10 s to answer while
    // the output is read (`printf ... | kftrain mcp` gets its results); a signal or a closed
    // output stops them at once. Every call in flight is stopped before it returns.
    int serve();

  private:
    struct Call {
        std::atomic<bool> cancelled{false};
        std::atomic<bool> done{false};
        std::thread thread;
    };

    void handle_line(std::string_view line);
    void start_call(kftrain::mcp::ToolCall call);
    void run_call(const kftrain::mcp::ToolCall& call, Call& state);
    bool in_flight(const nlohmann::json& id);
    void cancel(const nlohmann::json& id);
    void reap(bool stop_all);
    // After the input ended: wait up to k_finish_grace for the calls in flight to answer; 130
    // when a signal ends the wait, else 0.
    int finish_calls();
    // Return whether nobody reads the output any more.
    bool output_closed();
    bool write(const nlohmann::json& message);

    ServerPolicy m_policy;
    kftrain::mcp::ServerDescription m_description;
    std::vector<kftrain::mcp::ToolDef> m_tools;
    const ChildRunner& m_runner;
    int m_in_fd;
    int m_out_fd;
    std::ostream& m_err;

    std::mutex m_write_mutex;
    std::atomic<bool> m_output_gone{false};
    std::mutex m_calls_mutex;  // guards m_calls and orders a cancel before a late response
    std::map<std::string, std::unique_ptr<Call>> m_calls;  // by the request id's JSON text
};

}  // namespace kftrain::agent
