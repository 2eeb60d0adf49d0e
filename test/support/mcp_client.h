#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "support/cli_runner.h"
#include "util/subprocess.h"

namespace kftrain::test {

// A `kftrain mcp` server under test, driven through its standard input and output as a client
// would: one JSON-RPC message a line each way. Its stderr goes to the test's.
class McpServer {
  public:
    // Start the built kftrain with "mcp", args after it, env on top of the test's, in dir.
    McpServer(const std::vector<std::string>& args, const std::map<std::string, std::string>& env,
              const std::string& dir);
    ~McpServer();
    McpServer(const McpServer&) = delete;
    McpServer& operator=(const McpServer&) = delete;

    // Write a line (a newline is added) or a message.
    void send_raw(const std::string& line);
    void send(const nlohmann::json& message);
    // Send a request.
    void request(const nlohmann::json& id, const std::string& method,
                 const nlohmann::json& params = nlohmann::json::object());
    // Initialize as a client of protocol 2025-11-25 and send notifications/initialized.
    nlohmann::json initialize();
    // Call a tool and return the response (the whole JSON-RPC message).
    nlohmann::json call(const nlohmann::json& id, const std::string& tool,
                        const nlohmann::json& arguments,
                        std::chrono::seconds timeout = std::chrono::seconds(120));

    // Return the next message, each line required to be JSON; nullopt at end of output or
    // after timeout.
    std::optional<nlohmann::json> next(std::chrono::milliseconds timeout);
    // Return the response to id, keeping notifications seen on the way; fails the test when
    // none comes within timeout.
    nlohmann::json response(const nlohmann::json& id, std::chrono::milliseconds timeout);
    // Notifications seen so far.
    const std::vector<nlohmann::json>& notifications() const { return m_notifications; }

    // Send the server a signal.
    void signal(int sig) { m_proc.signal(sig); }
    // Close the server's standard input.
    void close_input();
    // Return its exit code once it ends within timeout; fails the test otherwise.
    int wait_exit(std::chrono::milliseconds timeout);

  private:
    util::Process m_proc;
    std::string m_buffer;
    std::vector<nlohmann::json> m_notifications;
    bool m_ended = false;
};

// Return whether a process whose command line holds every one of words is running.
bool process_running(const std::vector<std::string>& words);

// A scratch directory holding job files and the local backend's state.
struct McpFixture {
    std::string dir;
    std::map<std::string, std::string> env;

    McpFixture();

    // Start `kftrain mcp` with args in dir, initialized.
    std::unique_ptr<McpServer> serve(std::vector<std::string> args = {"--local"});

    // Write a local job running a shell command on every replica.
    void job(const std::string& file, const std::string& name, const std::string& command,
             int replicas = 1);

    // Run kftrain with args and --local on the fixture's state.
    CliRun kftrain(std::vector<std::string> args);
};

// Return whether a tools/call response is a tool error (isError).
bool is_error(const nlohmann::json& response);

// Return the text of a tool error.
std::string error_text(const nlohmann::json& response);

// Return a tool result's structuredContent, failing the test when it is an error.
nlohmann::json structured(const nlohmann::json& response);

}  // namespace kftrain::test
