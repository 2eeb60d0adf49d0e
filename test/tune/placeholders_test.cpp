// A program of its own tuned through Katib's ${trialParameters.NAME} placeholders: found in
// command, args and env, typed by their space, declared and used as Katib's webhook requires,
// and filled per trial.
#include <catch2/catch.hpp>

#include "manifest/load.h"
#include "manifest/render/render.h"
#include "manifest/trial_parameters.h"
#include "manifest/yaml/emit.h"
#include "support/jobs.h"
#include "tune/experiment.h"
#include "tune/metric_lines.h"
#include "tune/param_space.h"
#include "tune/tune_spec.h"

using namespace kftrain;

namespace {

// A user's script: lr and wd in args (one inside a longer value), momentum in env, and the
// trial's own name in an output path.
const std::string k_script =
    "name: my-script\n"
    "command: [python3, train.py]\n"
    "args: [--lr, \"${trialParameters.lr}\", --out, \"/out/${trialParameters.trialName}\", "
    "\"--wd=${trialParameters.wd}\"]\n"
    "env:\n"
    "  MOMENTUM: \"${trialParameters.momentum}\"\n";

tune::TuneFlags params(std::vector<std::string> texts) {
    tune::TuneFlags flags;
    flags.params = std::move(texts);
    return flags;
}

}  // namespace

TEST_CASE("placeholders are found in command, args and env values, each once, in order",
          "[tune][placeholders]") {
    auto found = manifest::find_placeholders(test::load_job(k_script));
    REQUIRE(found);
    std::vector<std::pair<std::string, std::string>> seen;
    for (const auto& p : *found) {
        seen.emplace_back(p.name, p.field);
    }
    CHECK(seen == std::vector<std::pair<std::string, std::string>>{{"lr", "args[1]"},
                                                                   {"trialName", "args[3]"},
                                                                   {"wd", "args[4]"},
                                                                   {"momentum", "env.MOMENTUM"}});
    CHECK(manifest::find_placeholders(test::load_job("name: a\n"))->empty());
}

TEST_CASE("a malformed placeholder is refused naming where it is", "[tune][placeholders]") {
    const std::vector<std::pair<std::string, std::string>> cases = {
        {"${trialParameters.}",
         "job.yaml:3: args[1]: \"${trialParameters.}\" names no parameter; write "
         "${trialParameters.NAME}"},
        {"${trialParameters.lr",
         "job.yaml:3: args[1]: \"${trialParameters.lr\" is not closed with '}'; write "
         "${trialParameters.NAME}"},
        {"${trialParameters.l r}",
         "job.yaml:3: args[1]: \"${trialParameters.l r}\": a parameter name is letters, "
         "digits, '_' and '-'"},
    };
    for (const auto& [value, message] : cases) {
        INFO(value);
        const auto job =
            test::load_job("name: a\ncommand: [python3, t.py]\nargs: [--lr, \"" + value + "\"]\n");
        auto found = manifest::find_placeholders(job);
        REQUIRE_FALSE(found);
        CHECK(found.error() == message);
        auto spec = tune::build_tune_spec(job, params({"lr=0.1:0.2"}));
        REQUIRE_FALSE(spec);
        CHECK(spec.error() == message);
    }
}

TEST_CASE("a placeholder's type comes from its space", "[tune][placeholders]") {
    struct Case {
        std::string space;
        tune::ParamType type;
        bool log;
    };
    const std::vector<Case> cases = {
        {"1:8", tune::ParamType::Int, false},
        {"1:9:step=2", tune::ParamType::Int, false},
        {"0.001:0.1", tune::ParamType::Double, false},
        {"1e-4:1e-2:log", tune::ParamType::Double, true},
        {"0:1.0", tune::ParamType::Double, false},
        {"16,32,64", tune::ParamType::Discrete, false},
        {"0.1,0.5", tune::ParamType::Discrete, false},
        {"adam,sgd", tune::ParamType::Categorical, false},
    };
    for (const auto& c : cases) {
        INFO(c.space);
        auto param = tune::parse_placeholder_param("x", c.space, "--param x=" + c.space);
        REQUIRE(param);
        CHECK(param->type == c.type);
        CHECK(param->log == c.log);
        CHECK(param->placeholder);
    }
    auto log_int = tune::parse_placeholder_param("layers", "1:8:log", "--param layers=1:8:log");
    REQUIRE_FALSE(log_int);
    CHECK(log_int.error() ==
          "--param layers=1:8:log: log: only a range of numbers with fractions can be searched "
          "on a log scale; ${trialParameters.layers} is an integer (write min or max with a "
          "decimal point, e.g. 1.0, for a double)");
    auto fraction_step = tune::parse_placeholder_param("n", "1:9:step=0.5", "--param n");
    REQUIRE_FALSE(fraction_step);
    CHECK(fraction_step.error() == "--param n: step must be an integer (got \"0.5\")");
}

TEST_CASE("every placeholder must be declared and every parameter used", "[tune][placeholders]") {
    struct Case {
        std::string name;
        std::vector<std::string> params;
        std::string message;
    };
    const std::vector<Case> cases = {
        {"wd undeclared",
         {"lr=0.001:0.1:log", "momentum=0.5:0.9"},
         "job.yaml:3: args[4]: ${trialParameters.wd} is not declared: add --param wd=SPACE (or "
         "tune.params.wd), SPACE MIN:MAX[:log][:step=S] or a list A,B,C"},
        {"beta unused",
         {"lr=0.001:0.1:log", "momentum=0.5:0.9", "wd=0:0.1", "beta=0.9,0.99"},
         "--param beta=0.9,0.99: the job file uses no ${trialParameters.beta} in command, args "
         "or env (it uses ${trialParameters.lr}, ${trialParameters.trialName}, "
         "${trialParameters.wd}, ${trialParameters.momentum}); a job with its own command is "
         "tuned through the placeholders it uses"},
        {"trialName is kftrain's",
         {"trialName=a,b"},
         "--param trialName=a,b: trialName is the trial's own name (Katib's ${trialSpec.Name}), "
         "which kftrain fills in; choose another name"},
    };
    for (const auto& c : cases) {
        INFO(c.name);
        auto spec = tune::build_tune_spec(test::load_job(k_script), params(c.params));
        REQUIRE_FALSE(spec);
        CHECK(spec.error() == c.message);
    }
    auto declared = tune::build_tune_spec(
        test::load_job(k_script), params({"lr=0.001:0.1:log", "momentum=0.5:0.9", "wd=0,0.01"}));
    REQUIRE(declared);
    REQUIRE(declared->params.size() == 3);
    CHECK(declared->params[2].type == tune::ParamType::Discrete);
}

TEST_CASE("a placeholder wins over a trainer key, a trainer key tunes only kftrain-trainer",
          "[tune][placeholders]") {
    // kftrain-trainer with lr from the environment: lr is the placeholder, epochs the key.
    const auto trainer_job =
        test::load_job("name: t\nenv:\n  LR: \"${trialParameters.lr}\"\ntrainer:\n  epochs: 2\n");
    auto spec = tune::build_tune_spec(trainer_job, params({"lr=0.01:0.1", "epochs=1:3"}));
    REQUIRE(spec);
    CHECK(spec->params[0].placeholder);
    CHECK_FALSE(spec->params[1].placeholder);
    const auto trial = tune::trial_job_spec(trainer_job, {{"lr", "0.05"}, {"epochs", "3"}}, "t-1");
    CHECK(trial.env.at("LR").value == "0.05");
    CHECK(trial.trainer_value("epochs", "") == "3");
    CHECK(trial.trainer_value("lr", "(unset)") == "(unset)");
}

TEST_CASE("each trial's job has its own values in command, args and env", "[tune][placeholders]") {
    const auto job = test::load_job(k_script);
    const auto trial = tune::trial_job_spec(
        job, {{"lr", "0.0123"}, {"wd", "0.01"}, {"momentum", "0.9"}}, "my-search-3", "1a2b3c4d");
    CHECK(*trial.args == std::vector<std::string>{"--lr", "0.0123", "--out",
                                                  "/out/my-search-3-1a2b3c4d", "--wd=0.01"});
    CHECK(trial.env.at("MOMENTUM").value == "0.9");
    CHECK(trial.name == "my-search-3");
    // A program of its own gets none of kftrain-trainer's settings.
    CHECK(trial.trainer.empty());
    auto rendered = manifest::render_job(trial, manifest::default_template(trial.kind));
    REQUIRE(rendered);
    CHECK(manifest::to_yaml(*rendered).find("trialParameters") == std::string::npos);
}

TEST_CASE("a program's objective may be any metric it prints, with its direction",
          "[tune][placeholders]") {
    auto f1 = tune::parse_objective("f1:maximize", "--objective", true);
    REQUIRE(f1);
    CHECK(f1->metric == "f1");
    CHECK(f1->maximize);
    auto val_loss = tune::parse_objective("val-loss:minimize", "--objective", true);
    REQUIRE(val_loss);
    CHECK_FALSE(val_loss->maximize);
    auto no_direction = tune::parse_objective("f1", "--objective", true);
    REQUIRE_FALSE(no_direction);
    CHECK(no_direction.error() ==
          "--objective: say whether to maximize or minimize f1: f1:maximize or f1:minimize");
    auto bad_name = tune::parse_objective("f 1:maximize", "--objective", true);
    REQUIRE_FALSE(bad_name);
    CHECK(bad_name.error() ==
          "--objective: \"f 1\": a metric's name is letters, digits, '_' and '-', as in the "
          "NAME=VALUE lines Katib's collector reads");
    CHECK_FALSE(tune::parse_objective("f1:maximize", "--objective", false));
}

TEST_CASE("NAME=VALUE lines give a metric, progress lines give what they do not",
          "[tune][placeholders]") {
    const std::vector<tune::MetricValue> lines = {{"accuracy", 0.8}, {"accuracy", 0.9}};
    const std::vector<tune::MetricValue> progress = {
        {"accuracy", 0.99}, {"loss", 0.4}, {"loss", 0.3}, {"f1", 0.5}};
    const auto reduced = tune::reduce_trial_metrics(lines, progress, true);
    CHECK(reduced.at("accuracy") == 0.9);
    CHECK(reduced.at("loss") == 0.4);  // the objective's strategy (max) for every metric
    CHECK(reduced.at("f1") == 0.5);
    CHECK(tune::reduce_trial_metrics({}, progress, false).at("loss") == 0.3);
}

TEST_CASE("a placeholder is filled by --set trialParameters.NAME=VALUE, an unused name is refused",
          "[tune][placeholders]") {
    const auto job = test::load_job(
        k_script, test::set_flags({"trialParameters.lr=0.01", "trialParameters.wd=0"}));
    CHECK((*job.args)[1] == "0.01");
    CHECK((*job.args)[4] == "--wd=0");
    auto left = manifest::require_no_placeholders(job);
    REQUIRE_FALSE(left);
    CHECK(
        left.error() ==
        "job.yaml:3: args[3]: ${trialParameters.trialName}; job.yaml:5: env.MOMENTUM: "
        "${trialParameters.momentum}: only `kftrain tune` fills Katib's placeholders, each "
        "trial with its own value; to render, submit or measure this job, give each a value: --set "
        "trialParameters.trialName=VALUE --set trialParameters.momentum=VALUE");
    CHECK(manifest::require_no_placeholders(test::load_job(
        k_script, test::set_flags({"trialParameters.lr=1", "trialParameters.wd=2",
                                   "trialParameters.momentum=3", "trialParameters.trialName=x"}))));
    manifest::Overrides overrides;
    overrides.sets = {"trialParameters.beta=0.9"};
    auto unused = manifest::load_job_text(k_script, "job.yaml", overrides);
    REQUIRE_FALSE(unused);
    CHECK(unused.error() ==
          "--set trialParameters.beta=0.9: the job file uses no ${trialParameters.beta} in "
          "command, args or env (it uses ${trialParameters.lr}, "
          "${trialParameters.trialName}, ${trialParameters.wd}, ${trialParameters.momentum})");
    overrides.sets = {"trialParameters.=1"};
    auto empty = manifest::load_job_text(k_script, "job.yaml", overrides);
    REQUIRE_FALSE(empty);
    CHECK(empty.error() ==
          "--set trialParameters.=1: expected trialParameters.NAME=VALUE, e.g. "
          "trialParameters.lr=0.01");
}
