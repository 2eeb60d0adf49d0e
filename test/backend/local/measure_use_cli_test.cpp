// estimate --measure on this machine reads what each replica's processes hold and use (their
// resident memory and CPU, as kftrain top does), keeps it in the profile, and recommends the
// resources to ask for (docs/estimate.md, "Memory and CPU").
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <nlohmann/json.hpp>
#include <regex>
#include <string>

#include "backend/local/local_fixture.h"
#include "support/files.h"

using namespace kftrain::test;
using nlohmann::json;

namespace {

constexpr double k_mib = 1024.0 * 1024;

// A program that holds hold_mib of memory (every page touched), grows by grow_mib at each of
// its steps, and reports them as a plain loop does.
std::string held_in_job(LocalJobs& jobs, const std::string& name, int hold_mib, int grow_mib,
                        int steps) {
    const std::string script = jobs.dir() + "/" + name + ".py";
    write_file(script,
               "import time\n"
               "def touched(mib):\n"
               "    block = bytearray(mib * 1024 * 1024)\n"
               "    for i in range(0, len(block), 4096):\n"
               "        block[i] = 1\n"
               "    return block\n"
               "kept = [touched(" +
                   std::to_string(hold_mib) +
                   ")]\n"
                   "steps = " +
                   std::to_string(steps) +
                   "\n"
                   "for step in range(1, steps + 1):\n"
                   "    kept.append(touched(" +
                   std::to_string(grow_mib) +
                   "))\n"
                   "    time.sleep(0.2)\n"
                   "    print(f'step {step}/{steps}', flush=True)\n");
    const std::string file = jobs.dir() + "/" + name + ".yaml";
    write_file(file, "name: " + name + "\ncommand: [python3, " + script + "]\n");
    return file;
}

}  // namespace

TEST_CASE(
    "a program holding 300 MiB is measured within 10% at 1 and 2 replicas, and its job "
    "file asks for more",
    "[estimate][local][sizing]") {
    LocalJobs jobs;
    const std::string file = held_in_job(jobs, "held", 300, 0, 20);
    const std::string profile = jobs.dir() + "/held.json";
    auto run = jobs.kftrain({"estimate", "-f", file, "--measure", "--measure-replicas", "1,2",
                             "--profile-out", profile, "--print-job-file"});
    INFO(run.out << run.err);
    REQUIRE(run.code == 0);
    const json sizes = json::parse(read_bytes(profile))["sizes"];
    REQUIRE(sizes.size() == 2);
    double peak = 0;
    double cores = 0;
    for (const json& size : sizes) {
        REQUIRE(size["use"].size() == size["replicas"].get<size_t>());
        for (const json& use : size["use"]) {
            INFO(use.dump());
            const double bytes = use["peak_memory_bytes"].get<double>();
            CHECK(bytes >= 300 * k_mib);
            CHECK(bytes <= 330 * k_mib);
            CHECK(use["cpu_cores"].get<double>() >= 0);
            CHECK_FALSE(use["memory_rising"].get<bool>());
            peak = std::max(peak, bytes);
            cores = std::max(cores, use["cpu_cores"].get<double>());
        }
    }
    // The job file asks for the peak and a fifth more, to the MiB; its CPU at what was used.
    std::smatch memory;
    REQUIRE(std::regex_search(run.out, memory, std::regex("\n  memory: (\\d+)Mi\n")));
    CHECK(std::stod(memory[1]) == std::ceil(peak * 1.2 / k_mib));
    // Its CPU at the most cores a replica used, up to 100m (how many depends on the machine).
    std::smatch cpu;
    REQUIRE(std::regex_search(run.out, cpu, std::regex("\n  cpu: (\\d+)(m?)\n")));
    const double milli = std::stod(cpu[1]) * (cpu[2] == "m" ? 1 : 1000);
    CHECK(milli == std::max(100.0, std::ceil(cores * 10 - 1e-9) * 100));
    CHECK(run.out.rfind("name: held\n", 0) == 0);
}

TEST_CASE("memory still growing when the measurement ends is called out, not averaged away",
          "[estimate][local][sizing]") {
    LocalJobs jobs;
    const std::string file = held_in_job(jobs, "leaky", 20, 10, 40);
    auto run = jobs.kftrain({"estimate", "-f", file, "--measure", "--measure-replicas", "1"});
    INFO(run.out << run.err);
    REQUIRE(run.code == 0);
    CHECK(run.out.find("still rising") != std::string::npos);
    CHECK(run.out.find("warning: master-0 at 1 replica: memory still grew when the measurement "
                       "ended (a leak?)") != std::string::npos);
    auto json_run = jobs.kftrain({"estimate", "-f", file, "-o", "json"});  // the saved profile
    REQUIRE(json_run.code == 0);
    const json recommended = json::parse(json_run.out)["program"]["recommended"];
    REQUIRE(recommended["warnings"].size() == 1);
    CHECK(recommended["peak_memory_bytes"].get<double>() >= 300 * k_mib);

    // A profile without memory readings (an older kftrain's) recommends nothing.
    const std::string saved = jobs.dir() + "/state/kftrain/profiles/leaky.json";
    json old = json::parse(read_bytes(saved));
    old["sizes"][0].erase("use");
    write_file(saved, old.dump());
    auto none = jobs.kftrain({"estimate", "-f", file, "--print-job-file"});
    CHECK(none.code == 2);
    CHECK(none.out.empty());
    CHECK(none.err ==
          "kftrain: error: --print-job-file: no measured memory for leaky: measure it "
          "with --measure (a trainer's --profile has none)\n");
}
