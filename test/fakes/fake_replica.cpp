// A stand-in for kftrain-trainer in the local backend's tests: reads the
// environment the operator injects, prints trainer-like JSON lines (rank 0
// prints progress; every rank prints its start line), and exits as told.
//
//   fake-replica [--steps N] [--step-ms MS] [--fail-rank R] [--fail-code C]
//                [--fail-once MARKER] [--hold-rank R] [--env-out DIR]
//                [--wait-peers DIR] [--hold-file PATH] [--pid-dir DIR]
//                [--checkpoint-dir DIR] [--checkpoint-fails MESSAGE]
//
// --fail-rank R makes rank R (-1: every rank) exit with --fail-code (default 1) after its
// steps; with --fail-once MARKER only while MARKER does not exist (it is
// created), so a restart succeeds. --hold-rank R keeps rank R running until a
// signal ends it (-1: every rank). --env-out DIR writes DIR/rank-R.env with
// the distributed variables. Without RANK (a TrainJob's node) the rank is
// PET_NODE_RANK and the world PET_NNODES. --wait-peers DIR makes every rank that succeeds
// write DIR/rank-R.done and rank 0 wait for the others' files first, like
// the final barrier of a data-parallel job. --hold-file PATH keeps every rank
// running until PATH exists, then lets it go on. --pid-dir DIR writes DIR/PID.pid
// for every process started, so a test can count (and check on) them all.
// --checkpoint-dir DIR behaves as the trainer does on SIGTERM (a suspend): rank 0 writes
// DIR/step (the steps done) and a checkpoint line, and every rank exits 143; a later start
// resumes after the step in DIR/step, saying so in its start line (resumed_from). With
// --checkpoint-fails MESSAGE that checkpoint is not written (as on a full disk): rank 0 prints
// a checkpoint_failed line with MESSAGE, naming the step DIR/step holds as the newest written.
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <string>
#include <thread>

namespace {

struct Options {
    int steps = 3;
    int step_ms = 10;
    int fail_rank = -2;
    int fail_code = 1;
    std::string fail_once;
    int hold_rank = -2;
    std::string env_out;
    std::string wait_peers;
    std::string hold_file;
    std::string pid_dir;
    std::string checkpoint_dir;
    std::string checkpoint_fails;
};

volatile std::sig_atomic_t g_terminated = 0;

void on_term(int) {
    g_terminated = 1;
}

std::string env(const char* name) {
    const char* value = std::getenv(name);
    return value != nullptr ? value : "";
}

Options parse(int argc, char** argv) {
    Options o;
    for (int i = 1; i + 1 < argc; i += 2) {
        std::string flag = argv[i];
        std::string value = argv[i + 1];
        if (flag == "--steps") {
            o.steps = std::stoi(value);
        } else if (flag == "--step-ms") {
            o.step_ms = std::stoi(value);
        } else if (flag == "--fail-rank") {
            o.fail_rank = std::stoi(value);
        } else if (flag == "--fail-code") {
            o.fail_code = std::stoi(value);
        } else if (flag == "--fail-once") {
            o.fail_once = value;
        } else if (flag == "--hold-rank") {
            o.hold_rank = std::stoi(value);
        } else if (flag == "--env-out") {
            o.env_out = value;
        } else if (flag == "--wait-peers") {
            o.wait_peers = value;
        } else if (flag == "--hold-file") {
            o.hold_file = value;
        } else if (flag == "--pid-dir") {
            o.pid_dir = value;
        } else if (flag == "--checkpoint-dir") {
            o.checkpoint_dir = value;
        } else if (flag == "--checkpoint-fails") {
            o.checkpoint_fails = value;
        }
    }
    return o;
}

void write_env(const std::string& dir, int rank) {
    std::ofstream out(dir + "/rank-" + std::to_string(rank) + ".env");
    for (const char* name :
         {"MASTER_ADDR", "MASTER_PORT", "PET_MASTER_ADDR", "PET_MASTER_PORT", "WORLD_SIZE", "RANK",
          "PET_NNODES", "PET_NODE_RANK", "PET_NPROC_PER_NODE", "LOCAL_RANK", "PYTHONUNBUFFERED",
          "FAKE_USER_VAR", "FAKE_SECRET", "FAKE_SHELL_ONLY", "HOME", "MLFLOW_TRACKING_URI"}) {
        out << name << "=" << env(name) << "\n";
    }
}

bool should_fail(const Options& o, int rank) {
    if (rank != o.fail_rank && o.fail_rank != -1) {
        return false;
    }
    if (o.fail_once.empty()) {
        return true;
    }
    if (std::ifstream(o.fail_once)) {
        return false;
    }
    std::ofstream(o.fail_once) << "failed once\n";
    return true;
}

std::string done_file(const std::string& dir, int rank) {
    return dir + "/rank-" + std::to_string(rank) + ".done";
}

// Wait until every other rank has written its done file.
void wait_for_peers(const std::string& dir, int world) {
    for (int peer = 1; peer < world; ++peer) {
        while (!std::ifstream(done_file(dir, peer))) {
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
        }
    }
}

}  // namespace

int main(int argc, char** argv) {
    Options o = parse(argc, argv);
    // Under Trainer v2 (a TrainJob) only PET_* is set: one process per node, like the trainer
    // derives it (rank = node rank, world = nodes).
    const bool v2 = env("RANK").empty() && !env("PET_NODE_RANK").empty();
    int rank = std::atoi(env(v2 ? "PET_NODE_RANK" : "RANK").c_str());
    int world = std::atoi(env(v2 ? "PET_NNODES" : "WORLD_SIZE").c_str());
    if (!o.pid_dir.empty()) {
        std::ofstream(o.pid_dir + "/" + std::to_string(::getpid()) + ".pid") << rank << "\n";
    }
    if (!o.env_out.empty()) {
        write_env(o.env_out, rank);
    }
    int done = 0;  // steps done before this start: the checkpoint's
    if (!o.checkpoint_dir.empty()) {
        std::signal(SIGTERM, on_term);
        std::ifstream(o.checkpoint_dir + "/step") >> done;
    }
    std::cout << R"({"event":"start","rank":)" << rank << R"(,"world_size":)" << world
              << R"(,"model":"fake","master":")" << env("MASTER_ADDR") << ":" << env("MASTER_PORT")
              << "\""
              << (o.checkpoint_dir.empty()
                      ? ""
                      : R"(,"resumed_from":)" + (done > 0 ? std::to_string(done) : "null"))
              << "}" << std::endl;
    for (int step = done + 1; step <= o.steps; ++step) {
        std::this_thread::sleep_for(std::chrono::milliseconds(o.step_ms));
        if (g_terminated) {
            if (rank == 0 && !o.checkpoint_fails.empty()) {
                std::cout << R"({"event":"checkpoint_failed","rank":0,"global_step":)" << step - 1
                          << R"(,"message":")" << o.checkpoint_fails
                          << R"(","last_checkpoint_step":)"
                          << (done > 0 ? std::to_string(done) : "null") << "}" << std::endl;
            } else if (rank == 0) {
                std::ofstream(o.checkpoint_dir + "/step") << step - 1 << "\n";
                std::cout << R"({"event":"checkpoint","rank":0,"global_step":)" << step - 1
                          << R"(,"path":")" << o.checkpoint_dir << "/step\"}" << std::endl;
            }
            return 143;
        }
        if (rank == 0) {
            std::cout << R"({"event":"progress","rank":0,"world_size":)" << world
                      << R"(,"epoch":1,"epochs":1,"step":)" << step << R"(,"steps_per_epoch":)"
                      << o.steps << R"(,"loss":)" << 1.0 / step
                      << R"(,"samples_per_sec":100.0,"eta_s":)" << (o.steps - step) << "}"
                      << std::endl;
        }
    }
    while (!o.hold_file.empty() && !std::ifstream(o.hold_file)) {
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    while (o.hold_rank == rank || o.hold_rank == -1) {
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    if (should_fail(o, rank)) {
        std::cerr << "fake-replica: rank " << rank << " failing with code " << o.fail_code
                  << std::endl;
        return o.fail_code;
    }
    if (!o.wait_peers.empty()) {
        if (rank == 0) {
            wait_for_peers(o.wait_peers, world);
        } else {
            std::ofstream(done_file(o.wait_peers, rank)) << "done\n";
        }
    }
    if (rank == 0) {
        std::cout << R"({"event":"finish","rank":0,"world_size":)" << world
                  << R"(,"epochs":1,"loss":0.1,"accuracy":0.9})" << std::endl;
    }
    return 0;
}
