#include "tune/param_space.h"

#include <catch2/catch.hpp>

using namespace kftrain;
using tune::ParamType;

TEST_CASE("a range of a number key is a double, on a log scale when asked", "[tune]") {
    auto lr = tune::parse_param_flag("lr=0.001:0.1:log");
    REQUIRE(lr);
    CHECK(lr->name == "lr");
    CHECK(lr->type == ParamType::Double);
    CHECK(lr->min == "0.001");
    CHECK(lr->max == "0.1");
    CHECK(lr->log);
    CHECK(tune::format_space(*lr) == "0.001:0.1:log");

    auto momentum = tune::parse_param("momentum", "0.5:0.95:step=0.05", "job.yaml:20");
    REQUIRE(momentum);
    CHECK_FALSE(momentum->log);
    CHECK(momentum->step == "0.05");
}

TEST_CASE("the key's schema decides a space's type", "[tune]") {
    struct Case {
        std::string flag;
        ParamType type;
        std::vector<std::string> list;
    };
    const std::vector<Case> cases = {
        {"epochs=1:5", ParamType::Int, {}},
        {"batchSize=32,64,128", ParamType::Discrete, {"32", "64", "128"}},
        {"weightDecay=0, 0.0001 ,0.001", ParamType::Discrete, {"0", "0.0001", "0.001"}},
        {"optimizer=sgd,adam", ParamType::Categorical, {"sgd", "adam"}},
        {"scaleLr=true,false", ParamType::Categorical, {"true", "false"}},
        {"model=mlp,mnist-cnn", ParamType::Categorical, {"mlp", "mnist-cnn"}},
    };
    for (const auto& c : cases) {
        INFO(c.flag);
        auto param = tune::parse_param_flag(c.flag);
        REQUIRE(param);
        CHECK(param->type == c.type);
        CHECK(param->list == c.list);
    }
}

TEST_CASE("a bad space names the flag, the value and why", "[tune]") {
    struct Case {
        std::string flag;
        std::string message;
    };
    const std::vector<Case> cases = {
        {"lr", "--param lr: expected NAME=SPACE, e.g. lr=0.001:0.1:log or batchSize=32,64,128"},
        {"lr=", "--param lr=: no values; give MIN:MAX[:log][:step=S] or a list A,B,C"},
        {"lrr=0.1:1",
         "--param lrr=0.1:1: \"lrr\" is not a trainer setting kftrain tunes (did you mean lr?); "
         "tunable: model, epochs, batchSize, lr, optimizer, momentum, weightDecay, scaleLr, "
         "warmupEpochs, lrStep, lrGamma, seed, samples"},
        {"dataDir=/a,/b",
         "--param dataDir=/a,/b: \"dataDir\" is not a trainer setting kftrain "
         "tunes; tunable: model, epochs, batchSize, lr, optimizer, momentum, "
         "weightDecay, scaleLr, warmupEpochs, lrStep, lrGamma, seed, samples"},
        {"lr=0.1:x", "--param lr=0.1:x: max must be a number (got \"x\")"},
        {"lr=0.1:0.01", "--param lr=0.1:0.01: min 0.1 must be below max 0.01"},
        {"lr=0.001:20", "--param lr=0.001:20: max 20 is above trainer.lr's largest value 10"},
        {"lr=0:0.1:log", "--param lr=0:0.1:log: log: a log scale needs min > 0 (got 0)"},
        {"lr=0.01:0.1:lin",
         "--param lr=0.01:0.1:lin: \"lin\" is neither log nor step=S; a range is "
         "MIN:MAX[:log][:step=S]"},
        {"lr=0.01:0.1:step=0.5",
         "--param lr=0.01:0.1:step=0.5: step 0.5 must be above 0 and at most max - min (0.09)"},
        {"epochs=1:5:log",
         "--param epochs=1:5:log: log: only a range of numbers with fractions can be searched on "
         "a log scale; trainer.epochs is an integer"},
        {"epochs=1.5:3", "--param epochs=1.5:3: min must be an integer (got \"1.5\")"},
        {"batchSize=32,,64", "--param batchSize=32,,64: an empty value in the list \"32,,64\""},
        {"batchSize=32,32", "--param batchSize=32,32: 32 is listed twice"},
        {"batchSize=0,32",
         "--param batchSize=0,32: value 0 is below trainer.batchSize's smallest "
         "value 1"},
        {"optimizer=sgd,adamw",
         "--param optimizer=sgd,adamw: trainer.optimizer must be one of sgd, adam (got \"adamw\")"},
        {"optimizer=a:b",
         "--param optimizer=a:b: trainer.optimizer is a string: give its values "
         "as a list (A,B,C), not a range"},
        {"scaleLr=yes", "--param scaleLr=yes: trainer.scaleLr is true or false (got \"yes\")"},
    };
    for (const auto& c : cases) {
        INFO(c.flag);
        auto param = tune::parse_param_flag(c.flag);
        REQUIRE_FALSE(param);
        CHECK(param.error() == c.message);
    }
}
