#include "tune/suggest.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <set>
#include <string>
#include <vector>

using namespace kftrain::tune;

namespace {

Param range(const std::string& name, ParamType type, const std::string& min, const std::string& max,
            bool log = false, const std::string& step = "") {
    Param p;
    p.name = name;
    p.type = type;
    p.min = min;
    p.max = max;
    p.log = log;
    p.step = step;
    return p;
}

Param list(const std::string& name, ParamType type, std::vector<std::string> values) {
    Param p;
    p.name = name;
    p.type = type;
    p.list = std::move(values);
    return p;
}

std::vector<Assignment> draw_all(Suggester& suggester, int n) {
    std::vector<Assignment> all;
    for (int i = 0; i < n; ++i) {
        auto next = suggester.next();
        REQUIRE(next.has_value());
        all.push_back(*next);
    }
    return all;
}

}  // namespace

TEST_CASE("random draws of a log range stay in range and spread over its decades", "[tune]") {
    auto suggester =
        Suggester::make("random", {range("lr", ParamType::Double, "0.0001", "1", true)}, 7);
    REQUIRE(suggester.ok());
    int per_decade[4] = {0, 0, 0, 0};
    for (const auto& assignment : draw_all(*suggester, 2000)) {
        REQUIRE(assignment.size() == 1);
        CHECK(assignment[0].first == "lr");
        double value = std::stod(assignment[0].second);
        REQUIRE(value >= 0.0001);
        REQUIRE(value <= 1.0);
        int decade = std::min(3, static_cast<int>(std::floor(std::log10(value) + 4)));
        ++per_decade[decade];
    }
    // Log-uniform: each decade gets about a quarter; uniform would put 90% in the last.
    for (int count : per_decade) {
        CHECK(count > 350);
        CHECK(count < 650);
    }
}

TEST_CASE("random draws are repeatable with a seed and differ with another", "[tune]") {
    std::vector<Param> params = {range("lr", ParamType::Double, "0.001", "0.1", true),
                                 range("momentum", ParamType::Double, "0.5", "0.95"),
                                 range("batchSize", ParamType::Int, "16", "256", false, "16"),
                                 list("optimizer", ParamType::Categorical, {"sgd", "adam"})};
    auto a = Suggester::make("random", params, 42);
    auto b = Suggester::make("random", params, 42);
    auto c = Suggester::make("random", params, 43);
    REQUIRE((a.ok() && b.ok() && c.ok()));
    auto first = draw_all(*a, 20);
    CHECK(first == draw_all(*b, 20));
    CHECK(first != draw_all(*c, 20));
    CHECK(default_seed("mnist-tune") == default_seed("mnist-tune"));
    CHECK(default_seed("mnist-tune") != default_seed("mnist-tune2"));
}

TEST_CASE("random ints land on the step and lists give only their values", "[tune]") {
    auto suggester =
        Suggester::make("random",
                        {range("batchSize", ParamType::Int, "16", "100", false, "16"),
                         range("epochs", ParamType::Int, "1", "3"),
                         list("optimizer", ParamType::Categorical, {"sgd", "adam"}),
                         range("momentum", ParamType::Double, "0.5", "0.9", false, "0.1")},
                        1);
    REQUIRE(suggester.ok());
    std::set<std::string> sizes, epochs, optimizers, momenta;
    for (const auto& a : draw_all(*suggester, 400)) {
        sizes.insert(a[0].second);
        epochs.insert(a[1].second);
        optimizers.insert(a[2].second);
        momenta.insert(a[3].second);
    }
    CHECK(sizes == std::set<std::string>{"16", "32", "48", "64", "80", "96"});
    CHECK(epochs == std::set<std::string>{"1", "2", "3"});
    CHECK(optimizers == std::set<std::string>{"adam", "sgd"});
    CHECK(momenta == std::set<std::string>{"0.5", "0.6", "0.7", "0.8", "0.9"});
}

TEST_CASE("random doubles are plain numbers the trainer parses back", "[tune]") {
    auto suggester =
        Suggester::make("random", {range("lr", ParamType::Double, "0.0005", "0.5", true)}, 3);
    REQUIRE(suggester.ok());
    for (const auto& a : draw_all(*suggester, 100)) {
        const std::string& text = a[0].second;
        INFO(text);
        CHECK(text.find(',') == std::string::npos);
        size_t used = 0;
        std::stod(text, &used);
        CHECK(used == text.size());
        CHECK(text.size() <= 11);  // six significant digits: 0.000512345
    }
}

TEST_CASE("grid points step from min to max for each kind of parameter", "[tune]") {
    struct Case {
        const char* name;
        Param param;
        std::vector<std::string> points;
    };
    std::vector<Case> cases = {
        {"int range, default step",
         range("epochs", ParamType::Int, "1", "4"),
         {"1", "2", "3", "4"}},
        {"int range with step",
         range("batchSize", ParamType::Int, "32", "128", false, "32"),
         {"32", "64", "96", "128"}},
        {"int step past max",
         range("batchSize", ParamType::Int, "32", "100", false, "32"),
         {"32", "64", "96"}},
        {"double range, max on the grid",
         range("momentum", ParamType::Double, "0.1", "0.5", false, "0.1"),
         {"0.1", "0.2", "0.3", "0.4", "0.5"}},
        {"log double range steps evenly like Katib's grid",
         range("lr", ParamType::Double, "0.01", "0.05", true, "0.02"),
         {"0.01", "0.03", "0.05"}},
        {"discrete list", list("batchSize", ParamType::Discrete, {"64", "32"}), {"64", "32"}},
        {"categorical list",
         list("optimizer", ParamType::Categorical, {"sgd", "adam"}),
         {"sgd", "adam"}},
    };
    for (const auto& c : cases) {
        INFO(c.name);
        auto points = grid_points(c.param);
        REQUIRE(points.ok());
        CHECK(*points == c.points);
    }
}

TEST_CASE("a grid over a double range without a step names the parameter", "[tune]") {
    auto points = grid_points(range("lr", ParamType::Double, "0.001", "0.1", true));
    REQUIRE_FALSE(points.ok());
    CHECK(points.error() ==
          "lr: grid search needs a step for a range of numbers, e.g. lr=0.001:0.1:log:step=S");
    CHECK_FALSE(Suggester::make("grid", {range("lr", ParamType::Double, "0.001", "0.1")}, 1).ok());
}

TEST_CASE("grid size is the product of the point counts", "[tune]") {
    std::vector<Param> params = {range("epochs", ParamType::Int, "1", "3"),
                                 list("optimizer", ParamType::Categorical, {"sgd", "adam"}),
                                 range("momentum", ParamType::Double, "0.5", "0.9", false, "0.2")};
    auto size = grid_size(params);
    REQUIRE(size.ok());
    CHECK(*size == 18);
    auto huge = grid_size({range("seed", ParamType::Int, "0", "2147483647"),
                           range("samples", ParamType::Int, "0", "2147483647"),
                           range("epochs", ParamType::Int, "1", "100000")});
    REQUIRE(huge.ok());
    CHECK(*huge == INT64_MAX);
}

TEST_CASE("grid search enumerates the product in order, then is exhausted", "[tune]") {
    auto suggester = Suggester::make("grid",
                                     {list("optimizer", ParamType::Categorical, {"sgd", "adam"}),
                                      range("batchSize", ParamType::Int, "32", "96", false, "32")},
                                     99);
    REQUIRE(suggester.ok());
    std::vector<std::string> seen;
    while (auto next = suggester->next()) {
        seen.push_back((*next)[0].first + "=" + (*next)[0].second + " " + (*next)[1].first + "=" +
                       (*next)[1].second);
    }
    CHECK(seen ==
          std::vector<std::string>{"optimizer=sgd batchSize=32", "optimizer=sgd batchSize=64",
                                   "optimizer=sgd batchSize=96", "optimizer=adam batchSize=32",
                                   "optimizer=adam batchSize=64", "optimizer=adam batchSize=96"});
    CHECK(suggester->proposed() == 6);
    CHECK_FALSE(suggester->next().has_value());
}

TEST_CASE("only random and grid run locally", "[tune]") {
    auto tpe = Suggester::make("tpe", {range("lr", ParamType::Double, "0.001", "0.1")}, 1);
    REQUIRE_FALSE(tpe.ok());
    CHECK(tpe.error() ==
          "--algorithm: tpe needs Katib's suggestion service on a cluster; random and grid run "
          "locally");
}
