// --threads N: the training thread's tensor operations run on N threads, and no thread pool the
// trainer does not use is left running beside them (its workers would spin on the cores the
// first training steps need).
#include <ATen/Parallel.h>
#include <torch/torch.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <thread>

#include "trainer/startup/compute_threads.h"

namespace {

// Return how many threads this process has.
size_t process_threads() {
    size_t n = 0;
    for ([[maybe_unused]] const auto& task :
         std::filesystem::directory_iterator("/proc/self/task")) {
        ++n;
    }
    return n;
}

}  // namespace

// ctest runs each test case in a process of its own, so the OpenMP team starts here. Three
// threads, more than this machine's default of one per core on two cores.
TEST_CASE(
    "configured for --threads 3, tensor operations run on three threads and no other thread starts",
    "[threads]") {
    const size_t before = process_threads();
    kftrain::trainer::configure_threads(3);
    CHECK(at::get_num_threads() == 3);
    // A reduction large enough to split: libtorch runs it on its OpenMP team, whose workers
    // make their first ATen calls.
    CHECK(torch::ones({1 << 20}).sum().item<float>() == static_cast<float>(1 << 20));

    // A thread started later (as a communication library's) makes its first ATen call.
    std::thread later([] { (void)torch::ones({8}).sum().item<float>(); });
    later.join();
    CHECK(at::get_num_threads() == 3);
    CHECK(torch::ones({1 << 20}).sum().item<float>() == static_cast<float>(1 << 20));

    // Two OpenMP workers beside this thread, and nothing else left behind.
    CHECK(process_threads() == before + 2);
}
