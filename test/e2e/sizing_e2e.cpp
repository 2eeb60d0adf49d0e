// Right-sized jobs on the real cluster (docs/estimate.md, "Memory and CPU"): estimate
// --measure --on-cluster reads a program's working set from the kubelet; the same program under
// a memory limit below it is predicted by doctor -f, really OOMKilled by the kubelet, and
// diagnose names the limit and the peak measured.

#include <catch2/catch.hpp>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "e2e/cluster.h"
#include "support/files.h"

using kftrain::e2e::Namespace;
using kftrain::e2e::poll_until;
using nlohmann::json;

namespace {

constexpr double k_mib = 1024.0 * 1024;

bool has(const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
}

// A project whose hold.py holds 200 MiB (every page touched) for about 25 s, reporting steps;
// its job file asks for memory.
std::string held_in_project(const std::string& memory) {
    const std::string dir = kftrain::test::make_temp_dir();
    std::filesystem::create_directories(dir + "/proj");
    kftrain::test::write_file(dir + "/proj/hold.py", R"(import time
block = bytearray(200 * 1024 * 1024)
for i in range(0, len(block), 4096):
    block[i] = 1
steps = 50
for step in range(1, steps + 1):
    time.sleep(0.5)
    print(f"step {step}/{steps}", flush=True)
)");
    kftrain::test::write_file(dir + "/job.yaml",
                              "name: held\nreplicas: 1\nimage: " + kftrain::e2e::python_image() +
                                  "\ncommand: [python3, hold.py]\nrestartPolicy: Never\n"
                                  "resources: {cpu: 200m, memory: " +
                                  memory + "}\ncode:\n  path: proj\n");
    return dir;
}

}  // namespace

TEST_CASE("a limit under the measured peak is predicted by doctor, OOMKilled, and diagnosed",
          "[e2e]") {
    Namespace ns("sizing");
    const std::string roomy = held_in_project("512Mi");
    auto measured =
        ns.kftrain({"estimate", "-f", roomy + "/job.yaml", "--measure", "--on-cluster", "--yes",
                    "--measure-replicas", "1", "--measure-seconds", "40", "-o", "json"});
    INFO(measured.out << measured.err);
    REQUIRE(measured.code == 0);
    const json recommended = json::parse(measured.out)["program"]["recommended"];
    REQUIRE(recommended.is_object());
    const double peak = recommended["peak_memory_bytes"].get<double>();
    CHECK(peak >= 200 * k_mib);  // the kubelet's working set: the 200 MiB and python itself
    CHECK(peak <= 260 * k_mib);

    // The same program under a 128Mi limit: doctor says it will be killed, naming both figures.
    const std::string tight = held_in_project("128Mi");
    auto doctor = ns.kftrain({"doctor", "-f", tight + "/job.yaml"});
    INFO(doctor.out << doctor.err);
    CHECK(doctor.code == 1);
    CHECK(has(doctor.out + doctor.err, "will be OOMKilled"));
    CHECK(has(doctor.out + doctor.err, "> limit 128Mi"));

    auto submitted = ns.kftrain({"submit", "-f", tight + "/job.yaml"});
    INFO(submitted.out << submitted.err);
    REQUIRE(submitted.code == 0);
    CHECK(has(submitted.err, "will be OOMKilled"));
    poll_until("the kubelet to OOMKill held's replica", std::chrono::seconds(180),
               [&](std::string& last) {
                   auto pod = ns.kubectl({"get", "pod", "held-master-0", "-o", "json"});
                   last = pod.out + pod.err;
                   return pod.code == 0 && has(pod.out, "\"reason\": \"OOMKilled\"");
               });
    auto diagnosed = ns.kftrain({"diagnose", "held"});
    INFO(diagnosed.out << diagnosed.err);
    CHECK(has(diagnosed.out, "OOMKilled"));
    CHECK(has(diagnosed.out, "128Mi"));
    CHECK(has(diagnosed.out, recommended["memory"].get<std::string>()));
}
