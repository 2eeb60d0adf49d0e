// Real multi-process runs of kftrain-trainer on 127.0.0.1: gradients through shared memory
// (--backend auto, every rank on this host) or Gloo's TCP (--backend gloo).
#include <csignal>
#include <cstdio>
#include <sstream>
#include <thread>

#include "trainer_process.h"

using namespace trainer_test;
using namespace std::chrono_literals;

namespace {

std::vector<std::string> train_args(const std::string& model, int samples, int batch, int epochs) {
    return {"--model",      model,
            "--samples",    std::to_string(samples),
            "--batch-size", std::to_string(batch),
            "--epochs",     std::to_string(epochs),
            "--log-format", "json",
            "--log-every",  "5",
            "--threads",    "1",
            "--timeout",    "60"};
}

std::vector<std::string> mlp_args(int samples, int batch, int epochs) {
    return train_args("mlp", samples, batch, epochs);
}

// Train world ranks of model on the same data; check they end with the same parameters and
// that the gradients went over backend (the start event's "backend").
void check_identical_params(int world, const std::string& backend = "auto",
                            const std::string& want_backend = "shm",
                            const std::string& model = "mlp") {
    const std::string dir = make_temp_dir();
    auto args = train_args(model, model == "mlp" ? 600 : 192, 32, 1);
    args.insert(args.end(), {"--backend", backend});
    const auto ranks = start_job(dir, world, args, {{"KFTRAIN_PARAMS_OUT", dir + "/params"}});
    for (const auto& r : ranks) {
        INFO(read_bytes(r.err_path));
        CHECK(wait_exit(r, 120s) == 0);
    }
    REQUIRE(events(ranks[0], "finish").size() == 1);
    CHECK(events(ranks[0], "finish")[0]["world_size"] == world);
    CHECK(events(ranks[0], "start").at(0)["backend"] == want_backend);
    const auto first = read_params(dir + "/params.rank0");
    REQUIRE(!first.empty());
    // --bucket-mb auto: every rank picks the same capacity from the probe (the buckets must
    // match for the all-reduce to pair them), within auto's range.
    const auto bucket_bytes = events(ranks[0], "start").at(0)["bucket_bytes"].get<int64_t>();
    CHECK(bucket_bytes >= 256 * 1024);
    CHECK(bucket_bytes <= 25 * 1024 * 1024);
    for (int r = 1; r < world; ++r) {
        CHECK(read_params(dir + "/params.rank" + std::to_string(r)) == first);
        CHECK(events(ranks[r], "progress").empty());
        REQUIRE(events(ranks[r], "start").size() == 1);
        CHECK(events(ranks[r], "start")[0]["bucket_bytes"] == bucket_bytes);
    }
}

}  // namespace

TEST_CASE("2 ranks end training with identical parameters", "[trainer][distributed]") {
    check_identical_params(2);
}

TEST_CASE("3 ranks end training with identical parameters", "[trainer][distributed]") {
    check_identical_params(3);
}

// Convolution weights channels last (NHWC), their gradients all-reduced as they lie.
TEST_CASE("2 ranks of mnist-cnn end training with identical parameters, over either backend",
          "[trainer][distributed]") {
    const std::string backend = GENERATE("auto", "gloo");
    check_identical_params(2, backend, backend == "auto" ? "shm" : "gloo", "mnist-cnn");
}

TEST_CASE("2 ranks over Gloo's TCP end training with identical parameters",
          "[trainer][distributed]") {
    check_identical_params(2, "gloo", "gloo");
}

TEST_CASE("shared memory and Gloo's TCP train 2 ranks to the same parameters",
          "[trainer][distributed]") {
    const std::string dir = make_temp_dir();
    std::map<std::string, std::vector<float>> params;
    for (const std::string backend : {"auto", "gloo"}) {
        auto args = mlp_args(256, 32, 1);
        args.insert(args.end(), {"--backend", backend});
        const auto ranks = start_job(dir, 2, args, {{"KFTRAIN_PARAMS_OUT", dir + "/" + backend}});
        for (const auto& r : ranks) {
            INFO(read_bytes(r.err_path));
            CHECK(wait_exit(r, 120s) == 0);
        }
        params[backend] = read_params(dir + "/" + backend + ".rank0");
    }
    REQUIRE(!params["auto"].empty());
    REQUIRE(params["auto"].size() == params["gloo"].size());
    float worst = 0;
    for (std::size_t i = 0; i < params["auto"].size(); ++i) {
        worst = std::max(worst, std::abs(params["auto"][i] - params["gloo"][i]));
    }
    CHECK(worst < 1e-5f);
}

TEST_CASE("2 ranks with batch B match 1 rank with batch 2B after one step",
          "[trainer][distributed]") {
    const std::string dir = make_temp_dir();
    const auto two = start_job(dir, 2, mlp_args(64, 32, 1), {{"KFTRAIN_PARAMS_OUT", dir + "/two"}});
    const auto one =
        start_trainer(dir, "single", mlp_args(64, 64, 1), {{"KFTRAIN_PARAMS_OUT", dir + "/one"}});
    CHECK(wait_exit(one, 60s) == 0);
    for (const auto& r : two) {
        CHECK(wait_exit(r, 60s) == 0);
    }
    REQUIRE(events(one, "finish").at(0)["global_step"] == 1);
    REQUIRE(events(two[0], "finish").at(0)["global_step"] == 1);
    const auto a = read_params(dir + "/one.rank0");
    const auto b = read_params(dir + "/two.rank0");
    REQUIRE(a.size() == b.size());
    float worst = 0;
    for (std::size_t i = 0; i < a.size(); ++i) {
        worst = std::max(worst, std::abs(a[i] - b[i]));
    }
    CHECK(worst < 1e-5f);
}

TEST_CASE("killing one rank makes the other exit non-zero within the timeout",
          "[trainer][distributed]") {
    const std::string dir = make_temp_dir();
    auto args = mlp_args(20000, 16, 100);
    args.back() = "10";  // --timeout 10
    const auto ranks = start_job(dir, 2, args);
    REQUIRE(wait_for_output(ranks[0], "\"event\":\"progress\"", 60s));
    ::kill(ranks[1].pid, SIGKILL);
    wait_exit(ranks[1], 10s);
    CHECK(wait_exit(ranks[0], 40s) == 1);
    const auto errors = events(ranks[0], "error");
    REQUIRE(errors.size() == 1);
    CHECK(errors[0]["message"].get<std::string>().find("a peer failed") != std::string::npos);
}

TEST_CASE("a peer that hangs makes the other exit non-zero after --timeout",
          "[trainer][distributed]") {
    const std::string dir = make_temp_dir();
    auto args = mlp_args(20000, 16, 100);
    args.back() = "3";  // --timeout 3
    const auto ranks = start_job(dir, 2, args);
    REQUIRE(wait_for_output(ranks[0], "\"event\":\"progress\"", 60s));
    ::kill(ranks[1].pid, SIGSTOP);
    CHECK(wait_exit(ranks[0], 40s) == 1);
    ::kill(ranks[1].pid, SIGKILL);
    wait_exit(ranks[1], 10s);
    REQUIRE(events(ranks[0], "error").size() == 1);
}

TEST_CASE("a peer that never arrives makes rank 0 exit non-zero after --timeout",
          "[trainer][distributed]") {
    const std::string dir = make_temp_dir();
    auto args = mlp_args(100, 16, 1);
    args.back() = "2";  // --timeout 2
    std::map<std::string, std::string> env{{"MASTER_ADDR", "127.0.0.1"},
                                           {"MASTER_PORT", std::to_string(free_port())},
                                           {"WORLD_SIZE", "2"},
                                           {"RANK", "0"}};
    const auto rank0 = start_trainer(dir, "rank0", args, env);
    CHECK(wait_exit(rank0, 40s) == 1);
    const auto errors = events(rank0, "error");
    REQUIRE(errors.size() == 1);
    CHECK(errors[0]["message"].get<std::string>().find("cannot connect to 127.0.0.1:") == 0);
}

namespace {

// Tell whether a socket on this host listens on port (from /proc/net/tcp and tcp6, without
// connecting, which the store would take for a peer).
bool listening_on(int port) {
    char local[16];
    std::snprintf(local, sizeof local, ":%04X ", port);
    for (const char* table : {"/proc/net/tcp", "/proc/net/tcp6"}) {
        std::istringstream lines(read_bytes(table));
        std::string line;
        while (std::getline(lines, line)) {
            // sl local_address rem_address st ...: state 0A is LISTEN.
            std::istringstream fields(line);
            std::string sl, address, remote, state;
            fields >> sl >> address >> remote >> state;
            if (state == "0A" && (address + " ").find(local) != std::string::npos) {
                return true;
            }
        }
    }
    return false;
}

}  // namespace

TEST_CASE("SIGTERM while rank 0 waits for its peers ends the wait at once with 143",
          "[trainer][distributed]") {
    const std::string dir = make_temp_dir();
    auto args = mlp_args(100, 16, 1);
    args.back() = "300";  // --timeout 300: the stop must not wait for it
    const int port = free_port();
    const auto rank0 = start_trainer(dir, "rank0", args,
                                     {{"MASTER_ADDR", "127.0.0.1"},
                                      {"MASTER_PORT", std::to_string(port)},
                                      {"WORLD_SIZE", "2"},
                                      {"RANK", "0"}});
    const auto deadline = std::chrono::steady_clock::now() + 60s;
    while (!listening_on(port) && std::chrono::steady_clock::now() < deadline &&
           !poll_exit(rank0, 0ms)) {
        std::this_thread::sleep_for(10ms);
    }
    REQUIRE(listening_on(port));  // rank 0's store is up: it waits for rank 1
    ::kill(rank0.pid, SIGTERM);
    CHECK(wait_exit(rank0, 30s) == 143);
    const auto warnings = events(rank0, "warning");
    REQUIRE(warnings.size() == 1);
    CHECK(warnings[0]["message"] == "stopped by a signal while connecting to 127.0.0.1:" +
                                        std::to_string(port) + " as rank 0 of 2");
}

TEST_CASE("ranks started with other settings than rank 0 all stop at once, naming the setting",
          "[trainer][distributed]") {
    const std::string dir = make_temp_dir();
    const std::string port = std::to_string(free_port());
    const std::map<std::string, std::string> env{
        {"MASTER_ADDR", "127.0.0.1"}, {"MASTER_PORT", port}, {"WORLD_SIZE", "2"}};
    auto rank0_env = env;
    rank0_env["RANK"] = "0";
    auto rank1_env = env;
    rank1_env["RANK"] = "1";
    // Before, rank 1 aborted in Gloo (a buffer of another size) and rank 0 waited for it.
    const auto rank0 = start_trainer(dir, "rank0", train_args("mlp", 100, 16, 1), rank0_env);
    const auto rank1 = start_trainer(dir, "rank1", train_args("mnist-cnn", 100, 16, 1), rank1_env);
    CHECK(wait_exit(rank0, 60s) == 1);
    CHECK(wait_exit(rank1, 60s) == 1);
    const auto errors1 = events(rank1, "error");
    REQUIRE(errors1.size() == 1);
    CHECK(errors1[0]["message"] ==
          "rank 1 was started with other settings than rank 0: --model mnist-cnn here, mlp on "
          "rank 0; every rank of a job must run the same command");
    const auto errors0 = events(rank0, "error");
    REQUIRE(errors0.size() == 1);
    CHECK(errors0[0]["message"] ==
          "1 of the 2 ranks were started with other settings than rank 0 (their errors say "
          "which); every rank of a job must run the same command");
}

TEST_CASE("rank 0 whose MASTER_PORT another process holds says so and exits at once",
          "[trainer][distributed]") {
    const std::string dir = make_temp_dir();
    const int held = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_ANY);
    REQUIRE(::bind(held, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0);
    REQUIRE(::listen(held, 4) == 0);
    socklen_t len = sizeof addr;
    REQUIRE(::getsockname(held, reinterpret_cast<sockaddr*>(&addr), &len) == 0);
    const auto port = std::to_string(ntohs(addr.sin_port));
    auto args = mlp_args(100, 16, 1);
    args.back() = "30";  // --timeout 30: the error must not wait for it
    const auto rank0 = start_trainer(
        dir, "rank0", args,
        {{"MASTER_ADDR", "127.0.0.1"}, {"MASTER_PORT", port}, {"WORLD_SIZE", "2"}, {"RANK", "0"}});
    CHECK(wait_exit(rank0, 20s) == 1);
    ::close(held);
    const auto errors = events(rank0, "error");
    REQUIRE(errors.size() == 1);
    CHECK(errors[0]["message"] == "rank 0 cannot listen on MASTER_PORT " + port +
                                      ": Address already in use; another process on this host "
                                      "holds it");
    CHECK(read_bytes(rank0.err_path).find("c10d") == std::string::npos);  // no libtorch log
}

TEST_CASE("nproc-per-node 2 spawns two local ranks that train together", "[trainer][distributed]") {
    const std::string dir = make_temp_dir();
    const auto pod = start_trainer(dir, "pod", mlp_args(256, 32, 1),
                                   {{"PET_NNODES", "1"},
                                    {"PET_NPROC_PER_NODE", "2"},
                                    {"PET_NODE_RANK", "0"},
                                    {"PET_MASTER_ADDR", "127.0.0.1"},
                                    {"PET_MASTER_PORT", std::to_string(free_port())},
                                    {"KFTRAIN_PARAMS_OUT", dir + "/params"}});
    CHECK(wait_exit(pod, 120s) == 0);
    const auto starts = events(pod, "start");
    REQUIRE(starts.size() == 2);
    CHECK(starts[0]["world_size"] == 2);
    CHECK(starts[0]["backend"] == "shm");  // one pod: its processes share /dev/shm
    CHECK(events(pod, "finish").size() == 1);
    CHECK(read_params(dir + "/params.rank0") == read_params(dir + "/params.rank1"));
}
