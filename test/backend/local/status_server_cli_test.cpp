// End-to-end tests of the status server a local job's replicas post trainerStatus to, as
// Kubeflow Trainer's own: a real Python client over HTTPS, answered as Trainer answers, and
// what it accepts shown by status while the job runs and after it ends.
#include <algorithm>
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <string>

#include "backend/local/local_fixture.h"
#include "support/paths.h"

using namespace kftrain::test;
using nlohmann::json;

namespace {

const std::string k_poster =
    std::string(kftrain::test::source_dir()) + "/test/fakes/status_poster.py";

// A job file whose replicas run the poster: it waits for release before it exits.
std::string poster_job(LocalJobs& jobs, const std::string& name, const std::string& kind,
                       const std::string& release, int floods) {
    const std::string path = jobs.dir() + "/" + name + ".yaml";
    write_file(path, "name: " + name + "\nkind: " + kind + "\nreplicas: 2\ncommand: [python3, \"" +
                         k_poster + "\", \"" + release + "\", \"" + std::to_string(floods) +
                         "\"]\n");
    return path;
}

json status_json(LocalJobs& jobs, const std::string& name) {
    const auto run = jobs.kftrain({"status", name, "--local", "-o", "json"});
    REQUIRE(run.code == 0);
    return json::parse(run.out);
}

// Poll status -o json until its progress satisfies pred; fail the test after a minute.
template <typename Pred>
json wait_for_progress(LocalJobs& jobs, const std::string& name, Pred pred) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (true) {
        json status = status_json(jobs, name);
        if (status.at("progress").is_object() && pred(status.at("progress"))) {
            return status;
        }
        if (std::chrono::steady_clock::now() > deadline) {
            FAIL("no such progress in time; last: " << status.at("progress").dump());
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
}

}  // namespace

TEST_CASE("a local job's status server answers bad posts as Trainer's does and shows good ones",
          "[local][cli][status-server]") {
    for (const std::string kind : {"PyTorchJob", "TrainJob"}) {
        LocalJobs jobs;
        const std::string name = kind == "TrainJob" ? "posts-v2" : "posts-v1";
        const std::string release = jobs.dir() + "/release";
        INFO(kind);
        const auto submit =
            jobs.kftrain({"submit", "-f", poster_job(jobs, name, kind, release, 150), "--local"});
        REQUIRE(submit.code == 0);
        // Both replicas have posted their last, good report: the flood did not break anything.
        jobs.wait_for(name, [&](const kftrain::job::JobStatus&) {
            const auto lines = jobs.log_lines(name);
            return std::count_if(lines.begin(), lines.end(), [](const std::string& l) {
                       return l.find("answer good") != std::string::npos;
                   }) == 2;
        });
        const auto lines = jobs.log_lines(name);
        CHECK(contains_line(lines, "answer wrong-token 403 Forbidden"));
        CHECK(contains_line(lines, "answer malformed 422 Invalid payload"));
        CHECK(contains_line(lines, "answer percent-250 422 TrainJob.trainer.kubeflow.org \"" +
                                       name +
                                       "\" is invalid: status.trainerStatus.progressPercentage: "
                                       "Invalid value: 250"));
        CHECK(contains_line(lines, "answer flood 200"));
        CHECK(contains_line(lines, "answer good 200 ok"));
        CHECK_FALSE(contains_line(lines, "answer flood 200 "));  // no other code in the flood

        // The supervisor records what was posted within a second or so: poll for it.
        const json running = wait_for_progress(jobs, name, [](const json& p) {
            return p.value("percent", 0.0) == 45 && p.contains("metrics");
        });
        CHECK(running["state"] == "Running");
        const json& progress = running.at("progress");
        CHECK(progress.value("etaSeconds", 0.0) == 30);
        CHECK(progress.value("loss", 0.0) == Approx(0.25));
        CHECK(progress.at("metrics").value("grad_norm", "") == "1.5");
        const auto text = jobs.kftrain({"status", name, "--local"});
        CHECK(text.out.find("45% ") != std::string::npos);
        CHECK(text.out.find("grad_norm 1.5") != std::string::npos);

        write_file(release, "");
        const auto done = jobs.wait_finished(name);
        CHECK(done.phase == kftrain::job::JobPhase::Succeeded);
        const json after = status_json(jobs, name);
        REQUIRE(after.at("progress").is_object());
        CHECK(after.at("progress").value("percent", 0.0) == 45);
        CHECK(after.at("progress").at("metrics").value("grad_norm", "") == "1.5");
    }
}

TEST_CASE("a local job whose program reports nothing says so in status",
          "[local][cli][status-server]") {
    LocalJobs jobs;
    const std::string path = jobs.dir() + "/quiet.yaml";
    write_file(path, "name: quiet\nreplicas: 1\ncommand: [\"true\"]\n");
    const auto submit = jobs.kftrain({"submit", "-f", path, "--local"});
    REQUIRE(submit.code == 0);
    jobs.wait_finished("quiet");
    const auto text = jobs.kftrain({"status", "quiet", "--local"});
    CHECK(text.out.find("Progress:   none reported: the program printed no progress kftrain "
                        "reads") != std::string::npos);
}

TEST_CASE("a job file that sets the status server's variables is refused, naming the key",
          "[local][status-server]") {
    LocalJobs jobs;
    for (const std::string kind : {"PyTorchJob", "TrainJob"}) {
        const std::string path = jobs.dir() + "/env.yaml";
        write_file(path, "name: envjob\nkind: " + kind +
                             "\nreplicas: 1\nimage: x\nenv:\n  KUBEFLOW_TRAINER_SERVER_URL: "
                             "https://example.com\n");
        const auto run = jobs.kftrain({"submit", "-f", path, "--local"});
        CHECK(run.code == 2);
        CHECK(run.err.find("env.KUBEFLOW_TRAINER_SERVER_URL") != std::string::npos);
        CHECK(run.err.find("is reserved") != std::string::npos);
        CHECK(kftrain::backend::local::job_names().empty());
    }
}
