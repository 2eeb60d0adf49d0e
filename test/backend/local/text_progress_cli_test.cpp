// Programs as users write them, unchanged: a 2-replica local job whose lead draws a real tqdm
// bar, prints the Trainer's dicts beside its bar, Keras's lines or a plain loop's. status shows
// a percentage and an ETA while each runs, says where it read them, and 100% at the end; a
// search finds its objective in what they print.
#include <filesystem>

#include "local_fixture.h"
#include "support/text.h"

using namespace kftrain;
using kftrain::test::LocalJobs;

namespace {

struct Program {
    const char* script;  // under test/data/progress
    const char* source;  // what status names
};

std::string script_path(const std::string& script) {
    return std::string(kftrain::test::test_data_dir()) + "/progress/" + script;
}

// Write a job file (or a search's, with more after it) that runs a script of
// test/data/progress with a gate file; the gate is open (it exists) unless closed.
std::string script_job(LocalJobs& jobs, const std::string& head, const std::string& script,
                       bool closed, const std::string& more = "") {
    const std::string gate = jobs.dir() + "/gate";
    if (!closed) {
        kftrain::test::write_file(gate, "");
    }
    const std::string file = jobs.dir() + "/job.yaml";
    kftrain::test::write_file(file, head + "command: [/usr/bin/python3, \"" + script_path(script) +
                                        "\", \"" + gate + "\"" + more);
    return file;
}

}  // namespace

TEST_CASE("status reads the progress a program prints of its own, while it runs and at its end",
          "[local][progress]") {
    const Program program = GENERATE(Program{"tqdm_bars.py", "a tqdm bar"},
                                     Program{"trainer_dicts.py", "Hugging Face Trainer logs"},
                                     Program{"keras_lines.py", "Keras output"},
                                     Program{"plain_loop.py", "plain progress lines"});
    INFO(program.script);
    LocalJobs jobs;
    const std::string file =
        script_job(jobs, "name: own\nreplicas: 2\n", program.script, true, "]\n");
    const auto submit = jobs.kftrain({"submit", "-f", file, "--local"});
    REQUIRE(submit.code == 0);

    // Halfway, the program waits for the gate: its figures stand still while status reads them.
    const job::JobStatus running = jobs.wait_for("own", [](const job::JobStatus& s) {
        return s.progress && s.progress->percent && *s.progress->percent >= 50 && s.progress->eta_s;
    });
    CHECK(*running.progress->percent < 100);
    CHECK(running.progress->source == program.source);
    const auto shown = jobs.kftrain({"status", "own", "--local"});
    INFO(shown.out);
    CHECK(kftrain::test::contains(shown.out, "% "));
    CHECK(kftrain::test::contains(shown.out, " ETA "));
    CHECK(kftrain::test::contains(shown.out, std::string("(from ") + program.source + ")"));
    const auto json = jobs.status_json("own");
    CHECK(json["progress"]["source"] == program.source);
    CHECK(json["progress"]["percent"].get<double>() >= 50);

    kftrain::test::write_file(jobs.dir() + "/gate", "");
    const job::JobStatus done = jobs.wait_finished("own");
    REQUIRE(done.phase == job::JobPhase::Succeeded);
    REQUIRE(done.progress);
    CHECK(*done.progress->percent == 100);
    CHECK(done.progress->loss);
}

TEST_CASE("a bar redrawn in place reaches the log as it moves and as it was left",
          "[local][progress]") {
    LocalJobs jobs;
    const std::string file =
        script_job(jobs, "name: bar\nreplicas: 1\n", "tqdm_bars.py", false, "]\n");
    REQUIRE(jobs.kftrain({"submit", "-f", file, "--local"}).code == 0);
    REQUIRE(jobs.wait_finished("bar").phase == job::JobPhase::Succeeded);
    const auto logs = jobs.kftrain({"logs", "bar", "--local"});
    INFO(logs.out);
    CHECK(kftrain::test::contains(logs.out, "Epoch 1/2: 100%"));
    CHECK(kftrain::test::contains(logs.out, "Epoch 2/2: 100%"));
    CHECK_FALSE(kftrain::test::contains(logs.out, "\\r"));  // no drawing is shown on top of another
    size_t lines = 0;
    for (char c : logs.out) {
        lines += c == '\n' ? 1 : 0;
    }
    CHECK(lines < 40);  // fewer lines than the 44 drawings: not each is kept
}

TEST_CASE("a local search reads its objective from the Trainer's dicts in every trial",
          "[local][progress][tune]") {
    LocalJobs jobs;
    const std::string file =
        script_job(jobs, "name: dicts\nreplicas: 1\n", "trainer_dicts.py", false,
                   ", \"${trialParameters.scale}\"]\ntune:\n  params:\n    scale: 1:4\n"
                   "  objective: loss:minimize\n  maxTrials: 3\n  parallel: 1\n");
    const auto run = jobs.kftrain({"tune", "-f", file, "--local"});
    INFO(run.out << run.err);
    REQUIRE(run.code == 0);
    const auto status = jobs.kftrain({"tune", "status", "dicts", "--local", "-o", "json"});
    INFO(status.out);
    REQUIRE(status.code == 0);
    const auto search = nlohmann::json::parse(status.out);
    REQUIRE(search["trials"].size() == 3);
    for (const auto& trial : search["trials"]) {
        INFO(trial.dump());
        REQUIRE(trial["objective"].is_number());
        // The least loss the trial's dicts printed: its scale x 2/20.
        CHECK(trial["objective"].get<double>() > 0.09);
        CHECK(trial["objective"].get<double>() < 0.41);
    }
}
