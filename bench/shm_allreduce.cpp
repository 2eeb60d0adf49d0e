// Time the shared-memory all-reduce of one step's gradients between two processes of this
// host, the way kftrain-trainer's ranks sum them: straight from the gradients where backward
// left them, against copying them into one bucket first and summing that in place (what the
// trainer did before, and what a flat-buffer all-reduce needs). The two ways alternate in
// rounds of 100 steps, so a change in the machine's state meets both; each round writes the
// gradients first, as backward would. Prints the median, fastest and slowest round of each.
//
//   kftrain-bench-shm-allreduce [ROUNDS] [COUNTS]
//   build/bench/kftrain-bench-shm-allreduce 40 200704,256,32768,128,1280,10   # mlp
//
// COUNTS: the gradients' element counts (float32), comma-separated; mlp's by default.
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

#include "trainer/comm/host_group.h"

namespace {

using kftrain::trainer::comm::HostGroup;
using kftrain::trainer::comm::HostPiece;
using kftrain::trainer::comm::HostType;
using kftrain::trainer::comm::ReduceOp;
using Clock = std::chrono::steady_clock;

constexpr int k_steps_per_round = 100;
constexpr std::size_t k_slot_bytes = std::size_t{1} << 20;  // the trainer's slot
constexpr auto k_timeout = std::chrono::seconds(60);

// Return the counts of a comma-separated list of positive integers; empty when malformed.
std::vector<std::size_t> parse_counts(const std::string& text) {
    std::vector<std::size_t> counts;
    std::size_t at = 0;
    while (at <= text.size()) {
        const std::size_t comma = std::min(text.find(',', at), text.size());
        const std::string item = text.substr(at, comma - at);
        if (item.empty() || item.size() > 9 ||
            item.find_first_not_of("0123456789") != std::string::npos || std::stoul(item) == 0) {
            return {};
        }
        counts.push_back(std::stoul(item));
        at = comma + 1;
    }
    return counts;
}

std::size_t total_of(const std::vector<std::size_t>& counts) {
    return std::accumulate(counts.begin(), counts.end(), std::size_t{0});
}

struct Figures {
    std::vector<double> from_grads_us, via_bucket_us;  // per round, mean per step
};

// Run the rounds as one rank; rank 0's figures are the ones printed.
Figures run_rounds(HostGroup& group, const std::vector<std::size_t>& counts, int rounds) {
    std::vector<std::vector<float>> grads;
    std::vector<HostPiece> pieces;
    for (std::size_t n : counts) {
        grads.emplace_back(n, 0.0f);
    }
    for (const auto& g : grads) {
        pieces.push_back(HostPiece{g.data(), g.size()});
    }
    const std::size_t total = total_of(counts);
    std::vector<float> bucket(total);
    Figures figures;
    for (int round = 0; round < rounds; ++round) {
        for (const bool from_grads : {true, false}) {
            double spent = 0;
            for (int step = 0; step < k_steps_per_round; ++step) {
                for (auto& g : grads) {
                    std::fill(g.begin(), g.end(), static_cast<float>(step));
                }
                const auto start = Clock::now();
                if (from_grads) {
                    group.allreduce(pieces, bucket.data(), HostType::f32, k_timeout,
                                    ReduceOp::mean);
                } else {
                    std::size_t at = 0;
                    for (const auto& g : grads) {
                        std::memcpy(bucket.data() + at, g.data(), g.size() * sizeof(float));
                        at += g.size();
                    }
                    group.allreduce(bucket.data(), total, HostType::f32, k_timeout, ReduceOp::mean);
                }
                spent += std::chrono::duration<double, std::micro>(Clock::now() - start).count();
            }
            (from_grads ? figures.from_grads_us : figures.via_bucket_us)
                .push_back(spent / k_steps_per_round);
        }
    }
    return figures;
}

void print_line(const char* name, std::vector<double> us) {
    std::sort(us.begin(), us.end());
    std::printf("%-42s %8.1f %8.1f %8.1f\n", name, us[us.size() / 2], us.front(), us.back());
}

}  // namespace

int main(int argc, char** argv) {
    const std::string rounds_text = argc > 1 ? argv[1] : "40";
    const std::string counts_text = argc > 2 ? argv[2] : "200704,256,32768,128,1280,10";
    const int rounds =
        rounds_text.size() <= 6 && rounds_text.find_first_not_of("0123456789") == std::string::npos
            ? std::atoi(rounds_text.c_str())
            : 0;
    const auto counts = parse_counts(counts_text);
    if (rounds < 1 || counts.empty()) {
        std::fprintf(stderr,
                     "kftrain-bench-shm-allreduce: ROUNDS must be a positive integer and COUNTS "
                     "positive integers separated by commas (got %s %s)\n",
                     rounds_text.c_str(), counts_text.c_str());
        return 2;
    }
    auto created = HostGroup::create(2, k_slot_bytes);
    if (!created.ok()) {
        std::fprintf(stderr, "kftrain-bench-shm-allreduce: %s\n", created.error().c_str());
        return 1;
    }
    std::unique_ptr<HostGroup> group = std::move(*created);
    const pid_t child = ::fork();
    if (child < 0) {
        std::perror("kftrain-bench-shm-allreduce: fork");
        return 1;
    }
    if (child == 0) {
        // Rank 1; it leaves the parent's handle alone and ends with _exit.
        auto opened = HostGroup::open(group->name(), 1, 2);
        if (!opened.ok()) {
            std::fprintf(stderr, "kftrain-bench-shm-allreduce: %s\n", opened.error().c_str());
            ::_exit(1);
        }
        try {
            run_rounds(**opened, counts, rounds);
        } catch (const std::exception& e) {
            std::fprintf(stderr, "kftrain-bench-shm-allreduce: rank 1: %s\n", e.what());
            ::_exit(1);
        }
        ::_exit(0);
    }
    Figures figures;
    try {
        figures = run_rounds(*group, counts, rounds);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "kftrain-bench-shm-allreduce: %s\n", e.what());
        return 1;
    }
    group->unlink();
    int status = 0;
    ::waitpid(child, &status, 0);
    std::printf(
        "shared-memory all-reduce (mean), 2 processes, %zu gradients, %.2f MB float32, %d "
        "rounds of %d steps, alternating\n",
        counts.size(), static_cast<double>(total_of(counts) * sizeof(float)) / 1e6, rounds,
        k_steps_per_round);
    std::printf("%-42s %8s %8s %8s\n", "us per step", "median", "fastest", "slowest");
    print_line("from the gradients (kftrain-trainer)", figures.from_grads_us);
    print_line("copied into one bucket, summed in place", figures.via_bucket_us);
    return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 1;
}
