// submit --dry-run=server: the real API server's admission chain checks each kind's manifest
// against the CRDs run.sh loaded, and creates nothing.

#include <catch2/catch.hpp>

#include "e2e/cluster.h"

using kftrain::e2e::Namespace;

TEST_CASE("submit --dry-run=server passes the real admission chain and creates nothing", "[e2e]") {
    Namespace ns("dryrun");
    for (const char* kind : {"PyTorchJob", "TrainJob"}) {
        auto file = kftrain::e2e::write_temp("job.yaml", kftrain::e2e::trainer_job("dry", kind, 3));
        auto run = ns.kftrain({"submit", "-f", file, "--dry-run=server"});
        INFO(kind << "\n" << run.out << run.err);
        CHECK(run.code == 0);
    }
    CHECK(ns.kubectl({"get", "pytorchjobs,trainjobs", "-o", "name"}).out.empty());
}
