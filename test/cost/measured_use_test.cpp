// Which saved profile tells what a job's program uses, whatever resources either asks for, and
// what a job's resources meet against it: the checks of doctor -f and submit.
#include <stdlib.h>

#include <catch2/catch.hpp>

#include "cost/job_sizing.h"
#include "cost/saved_profile.h"
#include "manifest/code.h"
#include "support/files.h"
#include "support/jobs.h"
#include "support/text.h"
#include "util/files.h"

using namespace kftrain;

namespace {

constexpr double k_mib = 1024.0 * 1024;

manifest::JobSpec own_job(const std::string& resources) {
    return test::load_job(
        "name: own\nreplicas: 2\ncommand: [python3, train.py]\n"
        "resources:\n" +
        resources);
}

// Point the state directory (where profiles are saved) at a fresh one for a test.
struct StateHome {
    std::string dir = test::make_temp_dir();
    StateHome() { ::setenv("XDG_STATE_HOME", dir.c_str(), 1); }
    ~StateHome() { ::unsetenv("XDG_STATE_HOME"); }
};

}  // namespace

TEST_CASE("a program's identity ignores its cpu and memory, not its program nor its GPUs",
          "[cost][sizing]") {
    const auto measured = own_job("  cpu: \"2\"\n  memory: 4Gi\n");
    const auto smaller = own_job("  cpu: 500m\n  memory: 128Mi\n");
    const auto limited = own_job("  memory: 128Mi\n  limits: {memory: 256Mi}\n");
    CHECK(cost::program_identity(measured) == cost::program_identity(smaller));
    CHECK(cost::program_identity(measured) == cost::program_identity(limited));
    CHECK(cost::program_fingerprint(measured) != cost::program_fingerprint(smaller));
    auto other = measured;
    other.command = {"python3", "other.py"};
    CHECK(cost::program_identity(measured) != cost::program_identity(other));
    CHECK(cost::program_identity(measured) != cost::program_identity(own_job("  gpus: 1\n")));
}

TEST_CASE("the measured use of a job's program is found whatever resources it asks now",
          "[cost][sizing]") {
    StateHome home;
    const auto measured = own_job("  memory: 4Gi\n");
    const auto smaller = own_job("  memory: 128Mi\n");
    const std::string path = test::save_measured_use(home.dir, measured, 312, false);
    CHECK_FALSE(cost::read_saved_profile(smaller, false));  // the estimate's: its settings only
    auto found = cost::read_measured_use(smaller, false);
    REQUIRE(found);
    CHECK(found->source == path);
    CHECK(found->program_id == cost::program_identity(smaller));
    CHECK(cost::read_measured_use(smaller, true));  // a cluster job: this machine's, failing one
    // of the cluster's image; the cluster's comes first.
    test::save_measured_use(home.dir, measured, 500, true);
    CHECK(cost::read_measured_use(smaller, true)->where.cluster);
    CHECK_FALSE(cost::read_measured_use(smaller, false)->where.cluster);
    auto other = smaller;
    other.command = {"python3", "other.py"};
    CHECK_FALSE(cost::read_measured_use(other, false));
}

TEST_CASE("a profile of an older kftrain, without program_id, tells no program's use",
          "[cost][sizing]") {
    StateHome home;
    const auto job = own_job("  memory: 4Gi\n");
    const std::string path = test::save_measured_use(home.dir, job, 312, false);
    std::string text = test::read_bytes(path);
    const auto at = text.find("  \"program_id\"");
    REQUIRE(at != std::string::npos);
    text.erase(at, text.find('\n', at) + 1 - at);
    test::write_file(path, text);
    CHECK(cost::read_saved_profile(job, false));  // still the estimate's
    CHECK_FALSE(cost::read_measured_use(job, false));
    CHECK(cost::read_named_profile("own", true));  // known by name alone, it is a job's
}

TEST_CASE("a job's memory limit is its memory unless it sets a limit of its own",
          "[cost][sizing]") {
    const auto plain = cost::job_resources(own_job("  cpu: 500m\n  memory: 128Mi\n"));
    CHECK(plain.memory_limit == 128 * k_mib);
    CHECK(plain.memory_request == 128 * k_mib);
    CHECK(plain.cpu_request == Approx(0.5));
    const auto limited = cost::job_resources(own_job("  memory: 128Mi\n  limits: {memory: 1Gi}\n"));
    CHECK(limited.memory_limit == 1024 * k_mib);
    CHECK(limited.memory_request == 128 * k_mib);
    CHECK_FALSE(limited.cpu_request);
}

TEST_CASE("submit's warnings name the measured peak, the limit and when it was measured",
          "[cost][sizing]") {
    StateHome home;
    const auto job = own_job("  memory: 128Mi\n");
    CHECK(cost::sizing_warnings(job, false).empty());  // never measured: nothing to say
    const std::string path = test::save_measured_use(home.dir, job, 312, false);
    CHECK(cost::sizing_warnings(job, false) ==
          std::vector<std::string>{
              "will be OOMKilled: peak 312Mi measured at 2 replicas > limit 128Mi; ask for 375Mi "
              "(resources.memory); measured 2026-12-06 (" +
              path + ")"});
    CHECK(cost::sizing_warnings(own_job("  memory: 512Mi\n"), false).empty());
    const auto wasteful = cost::sizing_warnings(own_job("  memory: 16Gi\n"), false);
    REQUIRE(wasteful.size() == 1);
    CHECK_THAT(wasteful[0], Catch::StartsWith("requests 16Gi of memory, where the peak measured "
                                              "is 312Mi"));
}

TEST_CASE("a TrainJob's shipped code, started in its folder, is still the program measured",
          "[cost][sizing]") {
    // submit attaches the code before it checks; the measurement's job is as loaded.
    const auto loaded = test::load_job(
        "name: own\nkind: TrainJob\ncommand: [python3, train.py]\ncode: {path: .}\n"
        "resources: {memory: 1Gi}\n");
    manifest::CodeBundle bundle;
    bundle.files = {{"train.py", false, "print(1)\n"}};
    bundle.hash = "0123456789";
    auto submitted = loaded;
    manifest::attach_code(submitted, bundle, {submitted.name});
    REQUIRE(submitted.command.size() > loaded.command.size());
    CHECK(manifest::own_command(submitted) == loaded.command);
    CHECK(cost::program_identity(submitted) == cost::program_identity(loaded));
    CHECK(cost::program_fingerprint(submitted) == cost::program_fingerprint(loaded));
}
