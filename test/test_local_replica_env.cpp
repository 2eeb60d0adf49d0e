#include <catch2/catch.hpp>

#include "cli/local/process/replica_env.h"

using kftrain::cli::local::operator_environment;
using kftrain::cli::local::Ports;
using kftrain::cli::local::replica_refs;
using kftrain::cli::local::world_size;
using kftrain::manifest::JobSpec;

namespace {

JobSpec job(int replicas, std::string nproc) {
    JobSpec spec;
    spec.name = "env-test";
    spec.replicas = replicas;
    spec.nproc_per_node = std::move(nproc);
    return spec;
}

}  // namespace

TEST_CASE("replicas are the Master then Workers with ranks offset by one", "[local]") {
    auto refs = replica_refs(job(3, ""));
    REQUIRE(refs.size() == 3);
    CHECK(refs[0].name == "master-0");
    CHECK(refs[0].rank == 0);
    CHECK(refs[1].name == "worker-0");
    CHECK(refs[1].rank == 1);
    CHECK(refs[2].name == "worker-1");
    CHECK(refs[2].rank == 2);
}

TEST_CASE("replica environment matches what Training Operator v1.9 injects", "[local]") {
    struct Case {
        const char* name;
        int replicas;
        std::string nproc;
        int rank;
        std::map<std::string, std::string> expected;
    };
    const Case cases[] = {
        {"master, nprocPerNode unset (operator default auto)",
         2,
         "",
         0,
         {{"WORLD_SIZE", "2"},
          {"RANK", "0"},
          {"PET_NPROC_PER_NODE", "auto"},
          {"PET_NODE_RANK", "0"},
          {"PET_NNODES", "2"}}},
        {"worker with nprocPerNode 2: WORLD_SIZE = replicas x nproc",
         3,
         "2",
         2,
         {{"WORLD_SIZE", "6"},
          {"RANK", "2"},
          {"PET_NPROC_PER_NODE", "2"},
          {"PET_NODE_RANK", "2"},
          {"PET_NNODES", "3"}}},
        {"nprocPerNode cpu counts as 1 in WORLD_SIZE",
         4,
         "cpu",
         1,
         {{"WORLD_SIZE", "4"}, {"RANK", "1"}, {"PET_NPROC_PER_NODE", "cpu"}}},
        {"one replica", 1, "1", 0, {{"WORLD_SIZE", "1"}, {"RANK", "0"}, {"PET_NNODES", "1"}}},
    };
    for (const auto& c : cases) {
        INFO(c.name);
        auto env = operator_environment(job(c.replicas, c.nproc), c.rank, Ports{29511, 29512});
        for (const auto& [key, value] : c.expected) {
            INFO(key);
            CHECK(env[key] == value);
        }
        CHECK(env["MASTER_ADDR"] == "127.0.0.1");
        CHECK(env["PET_MASTER_ADDR"] == "127.0.0.1");
        CHECK(env["MASTER_PORT"] == "29511");
        CHECK(env["PET_MASTER_PORT"] == "29511");
        CHECK(env["PYTHONUNBUFFERED"] == "0");
        CHECK(env.count("LOCAL_RANK") == 0);
        CHECK(world_size(job(c.replicas, c.nproc)) == std::stoi(env["WORLD_SIZE"]));
    }
}

TEST_CASE("an elasticPolicy sets the rendezvous variables instead of PET_NNODES", "[local]") {
    JobSpec spec = job(3, "");
    spec.elastic_policy = kftrain::manifest::ElasticPolicy{};
    spec.elastic_policy->max_replicas = 4;
    spec.elastic_policy->max_restarts = 3;
    auto env = operator_environment(spec, 0, Ports{1000, 2000});
    CHECK(env["PET_NNODES"] == "4:4");
    CHECK(env["PET_RDZV_ENDPOINT"] == "127.0.0.1:2000");
    CHECK(env["PET_RDZV_BACKEND"] == "c10d");
    CHECK(env["PET_MAX_RESTARTS"] == "3");
}

TEST_CASE("a TrainJob's nodes are node-0..N-1 ranked by their index", "[local]") {
    JobSpec spec = job(3, "");
    spec.kind = kftrain::manifest::JobKind::TrainJob;
    auto refs = replica_refs(spec);
    REQUIRE(refs.size() == 3);
    for (int i = 0; i < 3; ++i) {
        CHECK(refs[i].name == "node-" + std::to_string(i));
        CHECK(refs[i].type == "Node");
        CHECK(refs[i].rank == i);
    }
}

TEST_CASE("a TrainJob's node gets only Trainer v2's PET_* variables", "[local]") {
    struct Case {
        const char* name;
        std::string nproc;
        std::string cpu;
        int gpus;
        std::string expected_nproc;
    };
    const Case cases[] = {
        {"nprocPerNode a number", "2", "8", 0, "2"},
        {"auto with GPUs: one process per GPU", "auto", "8", 4, "4"},
        {"auto without GPUs: the whole CPUs of resources", "", "3500m", 0, "3"},
        {"auto with no resources: one", "", "", 0, "1"},
        {"auto with less than one CPU: one", "", "500m", 0, "1"},
    };
    for (const auto& c : cases) {
        INFO(c.name);
        JobSpec spec = job(2, c.nproc);
        spec.kind = kftrain::manifest::JobKind::TrainJob;
        spec.resources.cpu = c.cpu;
        spec.resources.gpus = c.gpus;
        auto env = operator_environment(spec, 1, Ports{29500, 0});
        CHECK(env == std::map<std::string, std::string>{{"PET_NNODES", "2"},
                                                        {"PET_NPROC_PER_NODE", c.expected_nproc},
                                                        {"PET_NODE_RANK", "1"},
                                                        {"PET_MASTER_ADDR", "127.0.0.1"},
                                                        {"PET_MASTER_PORT", "29500"}});
        CHECK(world_size(spec) == 2 * std::stoi(c.expected_nproc));
    }
}
