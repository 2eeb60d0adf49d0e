// kftrain run: a job made from flags and a command, no job file.
#include "cli/verbs/run_cmd.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "manifest/code.h"
#include "support/cli_runner.h"
#include "support/files.h"

using kftrain::test::run_kftrain;
using nlohmann::json;

TEST_CASE("run names a job after its script, as a DNS label with a suffix of its own", "[cli]") {
    using kftrain::cli::run_job_name;
    CHECK(run_job_name({"python3", "train.py", "--lr", "0.1"}, "ab12c") == "train-ab12c");
    CHECK(run_job_name({"python3", "src/My_Model.v2.py"}, "x") == "my-model-x");
    CHECK(run_job_name({"./9lives.sh"}, "x") == "job-9lives-x");
    CHECK(run_job_name({"sh", "-c", "echo"}, "x") == "sh-x");
}

TEST_CASE("run --print-job-file prints the job file its flags make, checked like submit's",
          "[cli]") {
    const std::string dir = kftrain::test::make_temp_dir();
    kftrain::test::write_file(dir + "/train.py", "print(1)\n");
    auto run = run_kftrain({"run", "--replicas", "3", "--name", "mine", "--env", "A=b c", "--cpu",
                            "2", "--code", dir, "--print-job-file", "--", "python3", "train.py",
                            "--lr", "0.1"});
    REQUIRE(run.code == 0);
    CHECK(run.out ==
          "name: mine\ncommand:\n  - python3\n  - train.py\n  - --lr\n  - \"0.1\"\n"
          "replicas: 3\nresources:\n  cpu: \"2\"\nenv:\n  A: b c\ncode:\n  path: " +
              dir + "\nrunPolicy:\n  backoffLimit: 4\n");
    // What it printed is a job file submit takes as it is.
    kftrain::test::write_file(dir + "/job.yaml", run.out);
    auto rendered = run_kftrain({"render", "-f", dir + "/job.yaml", "-o", "json"});
    REQUIRE(rendered.code == 0);
    CHECK(json::parse(
              rendered.out)["items"][1]["spec"]["pytorchReplicaSpecs"]["Worker"]["replicas"] == 2);

    auto bad = run_kftrain({"run", "--replicas", "0", "--print-job-file", "--", "python3", "t.py"});
    CHECK(bad.code == 2);
    CHECK(bad.out.empty());
    CHECK(bad.err.find("replicas") != std::string::npos);
    auto env = run_kftrain({"run", "--env", "NOVALUE", "--", "python3", "t.py"});
    CHECK(env.code == 2);
    CHECK(env.err == "kftrain: error: --env: expected NAME=VALUE (got NOVALUE)\n");
    auto none = run_kftrain({"run", "--replicas", "2"});
    CHECK(none.code == 2);
    CHECK(none.err.find("COMMAND: give the program to run after --") != std::string::npos);
}

TEST_CASE("run's errors name the flag that gave the value, not a line of its job file", "[cli]") {
    const std::string dir = kftrain::test::make_temp_dir();
    struct Case {
        std::vector<std::string> flags;
        std::string flag;
    };
    const std::vector<Case> cases = {
        {{"--replicas", "0"}, "--replicas"}, {{"--cpu", "two"}, "--cpu"},
        {{"--memory", "4 GB"}, "--memory"},  {{"--name", "Not_A_Name"}, "--name"},
        {{"--kind", "MPIJob"}, "--kind"},    {{"--code", dir + "/missing"}, "--code"},
    };
    for (const auto& c : cases) {
        std::vector<std::string> args = {"run", "--print-job-file"};
        args.insert(args.end(), c.flags.begin(), c.flags.end());
        args.insert(args.end(), {"--", "python3", "train.py"});
        auto run = run_kftrain(args);
        INFO(c.flag << ": " << run.err);
        CHECK(run.code == 2);
        CHECK(run.out.empty());
        CHECK(run.err.rfind("kftrain: error: " + c.flag, 0) == 0);
        CHECK(run.err.find("<job-yaml>") == std::string::npos);
    }
}

namespace {

// Return a flag's entry in a verb's --help: its line and the lines that continue it.
std::string flag_help_entry(const std::string& help, const std::string& flag) {
    const size_t start = help.find("  " + flag + " ");
    if (start == std::string::npos) {
        return "";
    }
    size_t end = help.find('\n', start);
    while (end != std::string::npos && help.compare(end + 1, 3, "   ") == 0 &&
           help.compare(end + 1, 3 + 2, "  --") != 0) {
        end = help.find('\n', end + 1);
    }
    return help.substr(start, end == std::string::npos ? std::string::npos : end - start);
}

}  // namespace

TEST_CASE("run takes submit's flags of what happens to the job, each helped as submit helps it",
          "[cli]") {
    auto run_help = run_kftrain({"run", "--help"});
    auto submit_help = run_kftrain({"submit", "--help"});
    REQUIRE(run_help.code == 0);
    REQUIRE(submit_help.code == 0);
    for (const char* flag : {"--dry-run", "--replace", "--env-from-shell", "--follow", "--wait",
                             "--stop-on-interrupt", "--no-progress", "--state-out", "--metrics-out",
                             "--max-cost", "--queue", "--priority-class"}) {
        INFO(flag);
        CHECK_FALSE(flag_help_entry(run_help.out, flag).empty());
        CHECK(flag_help_entry(run_help.out, flag) == flag_help_entry(submit_help.out, flag));
    }

    // --dry-run prints what would be applied, as submit's does: the code, then the job.
    const std::string dir = kftrain::test::make_temp_dir();
    kftrain::test::write_file(dir + "/train.py", "print(1)\n");
    auto dry = run_kftrain(
        {"run", "--name", "mine", "--code", dir, "--dry-run", "--", "python3", "train.py"});
    REQUIRE(dry.code == 0);
    const size_t config_map = dry.out.find("kind: ConfigMap");
    const size_t job = dry.out.find("kind: PyTorchJob");
    CHECK(config_map != std::string::npos);
    CHECK(job != std::string::npos);
    CHECK(config_map < job);
    auto bad =
        run_kftrain({"run", "--code", dir, "--dry-run", "sideways", "--", "python3", "train.py"});
    CHECK(bad.code == 2);
    CHECK(bad.err == "kftrain: error: --dry-run: must be client or server (got sideways)\n");
}

TEST_CASE("run leaves the image to the kind's default for code unless --image names one", "[cli]") {
    const std::string dir = kftrain::test::make_temp_dir();
    kftrain::test::write_file(dir + "/train.py", "print(1)\n");
    kftrain::manifest::JobSpec pytorch;
    const std::string framework_image = kftrain::manifest::default_code_image(pytorch);
    REQUIRE_FALSE(framework_image.empty());
    auto plain = run_kftrain({"run", "--code", dir, "--dry-run", "--", "python3", "train.py"});
    REQUIRE(plain.code == 0);
    CHECK(plain.out.find("image: " + framework_image) != std::string::npos);
    CHECK(plain.out.find("image: kftrain/trainer:latest") == std::string::npos);
    // Named, even as the job file's default, it is the image the job runs.
    auto named = run_kftrain({"run", "--code", dir, "--image", "kftrain/trainer:latest",
                              "--dry-run", "--", "python3", "train.py"});
    REQUIRE(named.code == 0);
    CHECK(named.out.find("image: kftrain/trainer:latest") != std::string::npos);
    CHECK(named.out.find("image: " + framework_image) == std::string::npos);
}

TEST_CASE("run without --image applies an image that has the command's interpreter", "[cli]") {
    auto v1 = run_kftrain({"run", "--no-code", "--dry-run", "--", "python3", "t.py"});
    REQUIRE(v1.code == 0);
    CHECK(v1.out.find("image: pytorch/pytorch:2.13.0-cuda13.0-cudnn9-runtime\n") !=
          std::string::npos);
    CHECK(v1.out.find("kftrain/trainer") == std::string::npos);
    // A TrainJob runs its runtime's image: the TrainJob names none.
    auto v2 = run_kftrain(
        {"run", "--no-code", "--kind", "TrainJob", "--dry-run", "--", "python3", "t.py"});
    REQUIRE(v2.code == 0);
    CHECK(v2.out.find("kftrain/trainer") == std::string::npos);
    // The trainer alone gets the trainer's image.
    auto trainer = run_kftrain({"run", "--no-code", "--dry-run", "--", "kftrain-trainer"});
    REQUIRE(trainer.code == 0);
    CHECK(trainer.out.find("image: kftrain/trainer:latest\n") != std::string::npos);
    // What --print-job-file shows renders to the same image.
    const std::string dir = kftrain::test::make_temp_dir();
    auto printed = run_kftrain({"run", "--no-code", "--print-job-file", "--", "python3", "t.py"});
    kftrain::test::write_file(dir + "/job.yaml", printed.out);
    auto rendered = run_kftrain({"render", "-f", dir + "/job.yaml"});
    CHECK(rendered.out.find("image: pytorch/pytorch:2.13.0-cuda13.0-cudnn9-runtime\n") !=
          std::string::npos);
}

TEST_CASE("run gives the program every word after its name, -- or not", "[cli][run]") {
    const std::string dir = kftrain::test::make_temp_dir();
    kftrain::test::write_file(dir + "/train.py", "print(1)\n");
    const std::string expected_command =
        "command:\n  - python3\n  - train.py\n  - --lr\n  - \"0.1\"\n  - -x\n";
    for (const auto& separator : {std::vector<std::string>{}, std::vector<std::string>{"--"}}) {
        std::vector<std::string> args = {"run", "--code", dir, "--dry-run", "--print-job-file"};
        args.insert(args.end(), separator.begin(), separator.end());
        args.insert(args.end(), {"python3", "train.py", "--lr", "0.1", "-x"});
        auto run = run_kftrain(args);
        INFO(run.err);
        REQUIRE(run.code == 0);
        CHECK(run.out.find(expected_command) != std::string::npos);
    }
    // --dry-run before the program, bare or with its value, stays kftrain's.
    auto server = run_kftrain(
        {"run", "--code", dir, "--dry-run", "server", "--print-job-file", "python3", "train.py"});
    CHECK(server.code == 0);
    CHECK(server.out.find("command:\n  - python3\n  - train.py\n") != std::string::npos);
}

TEST_CASE("run refuses its own flags after the command instead of taking them silently",
          "[cli][run]") {
    for (const auto& flag : std::vector<std::vector<std::string>>{
             {"--replicas", "3"}, {"--name=mine"}, {"-n", "team-a"}, {"--local"}}) {
        std::vector<std::string> args = {"run", "--print-job-file", "python3", "train.py"};
        args.insert(args.end(), flag.begin(), flag.end());
        auto run = run_kftrain(args);
        CHECK(run.code == 2);
        CHECK(run.out.empty());
        const std::string name = flag.front().substr(0, flag.front().find('='));
        CHECK(run.err == "kftrain: error: " + name +
                             " after the command (python3): kftrain's flags go before the "
                             "command; to give it to the program, put the command after --: "
                             "kftrain run [FLAGS] -- python3 ...\n");
    }
}

TEST_CASE(
    "run --print-job-file keeps -n, --queue and --priority-class, and its code folder works "
    "from wherever the file is saved",
    "[cli][run]") {
    const std::string dir = kftrain::test::make_temp_dir();
    kftrain::test::write_file(dir + "/train.py", "print(1)\n");
    auto run = run_kftrain({"-n", "team-a", "run", "--code", dir + "/.", "--queue", "q1",
                            "--priority-class", "high", "--print-job-file", "python3", "train.py"});
    INFO(run.err);
    REQUIRE(run.code == 0);
    CHECK(run.out.find("namespace: team-a\n") != std::string::npos);
    CHECK(run.out.find("code:\n  path: " + dir + "\n") != std::string::npos);
    CHECK(run.out.find("queue: q1\npriorityClass: high\n") != std::string::npos);
    // Saved in another folder, it renders the job run would submit.
    const std::string elsewhere = kftrain::test::make_temp_dir() + "/job.yaml";
    kftrain::test::write_file(elsewhere, run.out);
    auto rendered = run_kftrain({"render", "-f", elsewhere, "-o", "json"});
    INFO(rendered.err);
    REQUIRE(rendered.code == 0);
    const json job = json::parse(rendered.out)["items"][1];
    CHECK(job["metadata"]["namespace"] == "team-a");
    CHECK(job["metadata"]["labels"]["kueue.x-k8s.io/queue-name"] == "q1");
}
