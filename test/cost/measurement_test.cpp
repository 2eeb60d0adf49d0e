// What both measurements share: the price of a measurement on the cluster and the consent it
// needs, and which saved profile a later estimate uses (a cluster's first, for a cluster job).
#include "cost/measurement.h"

#include <stdlib.h>

#include <catch2/catch.hpp>

#include "cost/measure_cost.h"
#include "cost/saved_profile.h"
#include "support/files.h"
#include "support/jobs.h"

using namespace kftrain;

namespace {

estimate::PriceCatalog measure_prices() {
    estimate::PriceCatalog c;
    c.file = "prices.yaml";
    c.cpu = estimate::CpuPrice{"n2", 0.03, 0.004, std::nullopt};
    return c;
}

cost::MeasureRequest measure_request(const std::string& extra = "") {
    cost::MeasureRequest r;
    r.spec = test::load_job(
        "name: own\nreplicas: 2\ncommand: [python3, train.py]\n"
        "resources:\n  cpu: \"2\"\n  memory: 4Gi\n" +
        extra);
    r.replicas = {1, 2, 4};
    r.seconds = 60;
    return r;
}

// Point the state directory (where profiles are saved) at a fresh one for a test.
struct ProfileHome {
    std::string dir = test::make_temp_dir();
    ProfileHome() { ::setenv("XDG_STATE_HOME", dir.c_str(), 1); }
    ~ProfileHome() { ::unsetenv("XDG_STATE_HOME"); }
};

estimate::ProgramProfile measured_profile(const manifest::JobSpec& spec, bool cluster,
                                          const std::string& image) {
    cost::MeasureRequest r;
    r.spec = spec;
    estimate::ProgramProfile p = cost::new_profile(r);
    p.where.cluster = cluster;
    p.where.image = image;
    estimate::SizeMeasurement size;
    size.basis = "steps";
    size.training_s = cluster ? 100 : 300;
    size.reports = 10;
    p.sizes = {size};
    return p;
}

}  // namespace

TEST_CASE("a measurement on the cluster is priced as replicas x seconds, and at most 4x that",
          "[measure][cluster]") {
    const auto request = measure_request();
    const auto cost = cost::measurement_cost(request, {measure_prices(), ""});
    CHECK(cost.replicas == 7);
    REQUIRE(cost.per_replica_hour);
    CHECK(*cost.per_replica_hour == Approx(2 * 0.03 + 4 * 0.004));
    CHECK(*cost.amount == Approx(7 * 60 / 3600.0 * *cost.per_replica_hour));
    CHECK(*cost.most == Approx(7 * 240 / 3600.0 * *cost.per_replica_hour));
    const std::string text = cost::measurement_cost_text(request, cost);
    CHECK_THAT(text, Catch::Contains("own-measure-1, own-measure-2, own-measure-4") &&
                         Catch::Contains("one after another") && Catch::Contains("7 replicas"));

    CHECK_FALSE(cost::approve_measurement(cost, false, std::nullopt, ""));
    CHECK(cost::approve_measurement(cost, true, std::nullopt, ""));
    CHECK(cost::approve_measurement(cost, false, *cost.most, "enough"));
    auto short_of = cost::approve_measurement(cost, true, *cost.amount, "0.01");
    REQUIRE_FALSE(short_of);  // --max-cost holds even with --yes
    CHECK(short_of.error_code(0) == 2);
    CHECK_THAT(short_of.error(), Catch::Contains("more than 0.01"));

    const auto gpus =
        cost::measurement_cost(measure_request("  gpus: 1\n"), {measure_prices(), ""});
    CHECK_FALSE(gpus.most);
    CHECK_THAT(gpus.unpriced, Catch::Contains("--gpu"));
    CHECK_FALSE(cost::approve_measurement(gpus, true, 5.0, "5"));
    CHECK(cost::approve_measurement(gpus, true, std::nullopt, ""));
}

TEST_CASE("a cluster job's estimate prefers the cluster's measurement of its image",
          "[measure][cluster]") {
    ProfileHome home;
    const manifest::JobSpec spec = measure_request().spec;
    auto local = measured_profile(spec, false, "");
    auto cluster = measured_profile(spec, true, spec.image);
    REQUIRE(cost::save_measured_profile(local, ""));
    CHECK(cost::read_saved_profile(spec, true)->sizes[0].training_s == 300);
    REQUIRE(cost::save_measured_profile(cluster, ""));
    CHECK(cluster.source == cost::saved_profile_path("own", true));
    CHECK(cost::read_saved_profile(spec, true)->where.cluster);
    CHECK_FALSE(cost::read_saved_profile(spec, false)->where.cluster);  // a job run here

    manifest::JobSpec other_image = spec;
    other_image.image = "registry.example/other:2";
    auto fallback = cost::read_saved_profile(other_image, true);
    REQUIRE(fallback);
    CHECK_FALSE(fallback->where.cluster);  // measured with another image: this machine's
    manifest::JobSpec other_program = spec;
    other_program.command = {"python3", "other.py"};
    CHECK_FALSE(cost::read_saved_profile(other_program, true));
}

TEST_CASE("measurement job names keep every replica's service name within 63 characters",
          "[estimate]") {
    const std::string name(42, 'a');  // name-measure-1000 fits, name-measure-1000-worker-998 not
    auto spec = test::load_job("name: " + name + "\n");
    CHECK(cost::check_measure_jobs(spec, {1, 2, 8}).ok());
    auto refused = cost::check_measure_jobs(spec, {1, 1000});
    REQUIRE_FALSE(refused.ok());
    CHECK(refused.error() == "--measure: at 1000 replicas the job runs as " + name +
                                 "-measure-1000, whose replica " + name +
                                 "-measure-1000-worker-998 is longer than the 63 characters of "
                                 "a service name: shorten its name to at most 39 characters");
    CHECK(refused.error_code(0) == 2);
    const std::string fits(39, 'a');
    CHECK(cost::check_measure_jobs(test::load_job("name: " + fits + "\n"), {1000}).ok());
}
