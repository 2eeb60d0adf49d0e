#include "support/mcp_client.h"

#include <dirent.h>
#include <poll.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cerrno>
#include <csignal>
#include <fstream>
#include <iterator>

#include "support/files.h"
#include "support/paths.h"

namespace kftrain::test {
namespace {

using Clock = std::chrono::steady_clock;
using json = nlohmann::json;

util::Process start(const std::vector<std::string>& args,
                    const std::map<std::string, std::string>& env, const std::string& dir) {
    util::SpawnOptions spawn;
    spawn.argv = {kftrain::test::kftrain_binary(), "mcp"};
    spawn.argv.insert(spawn.argv.end(), args.begin(), args.end());
    spawn.env = env;
    spawn.cwd = dir;
    spawn.stdin_from = util::Redirect::pipe();
    spawn.stderr_to = util::Redirect::inherit();
    spawn.own_group = true;
    auto proc = util::Process::spawn(spawn);
    if (!proc) {
        FAIL(proc.error());
    }
    return std::move(*proc);
}

}  // namespace

McpServer::McpServer(const std::vector<std::string>& args,
                     const std::map<std::string, std::string>& env, const std::string& dir)
    : m_proc(start(args, env, dir)) {}

McpServer::~McpServer() {
    if (!m_proc.try_wait()) {
        m_proc.signal_group(SIGKILL);
        m_proc.wait();
    }
}

void McpServer::send_raw(const std::string& line) {
    const std::string data = line + "\n";
    size_t written = 0;
    while (written < data.size()) {
        ssize_t n = ::write(m_proc.stdin_fd(), data.data() + written, data.size() - written);
        if (n < 0 && (errno == EAGAIN || errno == EINTR)) {
            pollfd p{m_proc.stdin_fd(), POLLOUT, 0};
            ::poll(&p, 1, 1000);
            continue;
        }
        REQUIRE(n > 0);
        written += static_cast<size_t>(n);
    }
}

void McpServer::send(const json& message) {
    send_raw(message.dump());
}

void McpServer::request(const json& id, const std::string& method, const json& params) {
    send({{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", params}});
}

json McpServer::initialize() {
    request("init", "initialize",
            {{"protocolVersion", "2025-11-25"},
             {"capabilities", json::object()},
             {"clientInfo", {{"name", "kftrain-tests"}, {"version", "1"}}}});
    json reply = response("init", std::chrono::seconds(30));
    send({{"jsonrpc", "2.0"}, {"method", "notifications/initialized"}});
    return reply;
}

json McpServer::call(const json& id, const std::string& tool, const json& arguments,
                     std::chrono::seconds timeout) {
    request(id, "tools/call", {{"name", tool}, {"arguments", arguments}});
    return response(id, timeout);
}

std::optional<json> McpServer::next(std::chrono::milliseconds timeout) {
    const auto deadline = Clock::now() + timeout;
    while (true) {
        if (auto newline = m_buffer.find('\n'); newline != std::string::npos) {
            std::string line = m_buffer.substr(0, newline);
            m_buffer.erase(0, newline + 1);
            json message = json::parse(line, nullptr, false);
            INFO("a line the server wrote: " << line);
            REQUIRE_FALSE(message.is_discarded());  // nothing but protocol on stdout
            return message;
        }
        auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
        if (m_ended || left.count() <= 0) {
            return std::nullopt;
        }
        pollfd p{m_proc.stdout_fd(), POLLIN, 0};
        if (::poll(&p, 1, static_cast<int>(left.count())) <= 0) {
            continue;
        }
        char chunk[65536];
        ssize_t n = ::read(m_proc.stdout_fd(), chunk, sizeof chunk);
        if (n <= 0) {
            m_ended = true;
        } else {
            m_buffer.append(chunk, static_cast<size_t>(n));
        }
    }
}

json McpServer::response(const json& id, std::chrono::milliseconds timeout) {
    const auto deadline = Clock::now() + timeout;
    while (Clock::now() < deadline) {
        auto message =
            next(std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()));
        if (!message) {
            break;
        }
        if (!message->contains("id")) {
            m_notifications.push_back(*message);
        } else if ((*message)["id"] == id) {
            return *message;
        } else {
            FAIL("a response to another request: " << message->dump());
        }
    }
    FAIL("no response to " << id.dump());
    return nullptr;
}

void McpServer::close_input() {
    m_proc.close_stdin();
}

int McpServer::wait_exit(std::chrono::milliseconds timeout) {
    const auto deadline = Clock::now() + timeout;
    while (Clock::now() < deadline) {
        if (auto status = m_proc.try_wait()) {
            return status->as_shell_code();
        }
        ::poll(nullptr, 0, 20);
    }
    FAIL("kftrain mcp still running after its input closed");
    return -1;
}

bool process_running(const std::vector<std::string>& words) {
    DIR* proc = ::opendir("/proc");
    if (proc == nullptr) {
        return false;
    }
    bool found = false;
    while (dirent* entry = ::readdir(proc)) {
        std::string pid = entry->d_name;
        if (pid.empty() || pid.find_first_not_of("0123456789") != std::string::npos) {
            continue;
        }
        // A process that ends while its cmdline is read makes libstdc++'s filebuf throw (read()
        // fails with ESRCH): it is not running.
        std::string cmdline;
        try {
            std::ifstream file("/proc/" + pid + "/cmdline");
            cmdline.assign(std::istreambuf_iterator<char>(file), {});
        } catch (const std::exception&) {
            continue;
        }
        std::vector<std::string> args;
        size_t start = 0;
        for (size_t i = 0; i <= cmdline.size(); ++i) {
            if (i == cmdline.size() || cmdline[i] == '\0') {
                if (i > start) {
                    args.push_back(cmdline.substr(start, i - start));
                }
                start = i + 1;
            }
        }
        bool all = !args.empty();
        for (const std::string& word : words) {
            all = all && std::find(args.begin(), args.end(), word) != args.end();
        }
        found = found || all;
    }
    ::closedir(proc);
    return found;
}

McpFixture::McpFixture() : dir(make_temp_dir()), env({{"XDG_STATE_HOME", dir + "/state"}}) {}

std::unique_ptr<McpServer> McpFixture::serve(std::vector<std::string> args) {
    auto server = std::make_unique<McpServer>(args, env, dir);
    server->initialize();
    return server;
}

void McpFixture::job(const std::string& file, const std::string& name, const std::string& command,
                     int replicas) {
    write_file(dir + "/" + file, "name: " + name +
                                     "\nbackend: local\nreplicas: " + std::to_string(replicas) +
                                     "\ncommand: [\"sh\", \"-c\", " + json(command).dump() + "]\n");
}

CliRun McpFixture::kftrain(std::vector<std::string> args) {
    args.push_back("--local");
    return run_kftrain(args, env);
}

bool is_error(const json& response) {
    return response["result"]["isError"] == true;
}

std::string error_text(const json& response) {
    return response["result"]["content"][0]["text"].get<std::string>();
}

json structured(const json& response) {
    INFO(response.dump());
    REQUIRE(response["result"]["isError"] == false);
    return response["result"]["structuredContent"];
}

}  // namespace kftrain::test
