#include "backend/local/process/replica_env.h"

#include <catch2/catch.hpp>

using kftrain::backend::local::operator_environment;
using kftrain::backend::local::Ports;
using kftrain::backend::local::replica_refs;
using kftrain::backend::local::world_size;
using kftrain::manifest::JobSpec;

namespace {

JobSpec job_spec(int replicas, std::string nproc) {
    JobSpec spec;
    spec.name = "env-test";
    spec.replicas = replicas;
    spec.nproc_per_node = std::move(nproc);
    return spec;
}

}  // namespace

TEST_CASE("replicas are the Master then Workers with ranks offset by one", "[local]") {
    auto refs = replica_refs(job_spec(3, ""));
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
        auto env = operator_environment(job_spec(c.replicas, c.nproc), c.rank, Ports{29511, 29512});
        for (const auto& [key, value] : c.expected) {
            INFO(key);
            CHECK(env[key] == value);
        }
        CHECK(env["MASTER_ADDR"] == "127.0.0.1");
        CHECK(env["PET_MASTER_ADDR"] == "127.0.0.1");
        CHECK(env["MASTER_PORT"] == "29511");
        CHECK(env["PET_MASTER_PORT"] == "29511");
        CHECK(env["PYTHONUNBUFFERED"] == "1");  // unbuffered: "0" is buffered for Python 3.11
        CHECK(env.count("LOCAL_RANK") == 0);
        CHECK(world_size(job_spec(c.replicas, c.nproc)) == std::stoi(env["WORLD_SIZE"]));
    }
}

TEST_CASE("an elasticPolicy sets the rendezvous variables instead of PET_NNODES", "[local]") {
    JobSpec spec = job_spec(3, "");
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
    JobSpec spec = job_spec(3, "");
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
        JobSpec spec = job_spec(2, c.nproc);
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

TEST_CASE("other kinds' replicas get their operator's variables, pointing here",
          "[local][frameworks]") {
    using kftrain::manifest::JobKind;
    JobSpec xgb = job_spec(3, "");
    xgb.kind = JobKind::XGBoostJob;
    CHECK(operator_environment(xgb, 2, Ports{9001, 9002}) ==
          std::map<std::string, std::string>{{"MASTER_ADDR", "127.0.0.1"},
                                             {"MASTER_PORT", "9001"},
                                             {"WORLD_SIZE", "3"},
                                             {"RANK", "2"},
                                             {"PYTHONUNBUFFERED", "1"},
                                             {"WORKER_PORT", "9002"},
                                             {"WORKER_ADDRS", "127.0.0.1,127.0.0.1"}});
    JobSpec jax = job_spec(3, "");
    jax.kind = JobKind::JAXJob;
    CHECK(operator_environment(jax, 1, Ports{9001, 9002}) ==
          std::map<std::string, std::string>{{"PYTHONUNBUFFERED", "1"},
                                             {"COORDINATOR_ADDRESS", "127.0.0.1"},
                                             {"COORDINATOR_PORT", "9001"},
                                             {"NUM_PROCESSES", "3"},
                                             {"PROCESS_ID", "1"}});
    JobSpec v2 = job_spec(2, "");
    v2.kind = JobKind::TrainJob;
    v2.runtime = "xgboost-distributed";
    v2.resources.gpus = 4;
    CHECK(operator_environment(v2, 1, Ports{9001, 0}) ==
          std::map<std::string, std::string>{{"DMLC_TRACKER_URI", "127.0.0.1"},
                                             {"DMLC_TRACKER_PORT", "9001"},
                                             {"DMLC_TASK_ID", "1"},
                                             {"DMLC_NUM_WORKER", "8"}});
    v2.runtime = "jax-distributed";
    CHECK(operator_environment(v2, 1, Ports{9001, 0}) ==
          std::map<std::string, std::string>{{"JAX_NUM_PROCESSES", "2"},
                                             {"JAX_PROCESS_ID", "1"},
                                             {"JAX_COORDINATOR_ADDRESS", "127.0.0.1:9001"}});
}

TEST_CASE("a local TFJob's TF_CONFIG gives every replica a port of its own",
          "[local][frameworks]") {
    JobSpec tf = job_spec(4, "");
    tf.kind = kftrain::manifest::JobKind::TFJob;
    tf.roles = kftrain::manifest::Roles{1, 2, 1, 0};
    auto refs = replica_refs(tf);
    REQUIRE(refs.size() == 4);
    CHECK(refs[0].name == "chief-0");
    CHECK(refs[1].name == "worker-0");
    CHECK(refs[3].name == "ps-0");
    Ports ports{9001, 9002, 9100};
    auto env = operator_environment(tf, 3, ports);
    CHECK(env ==
          std::map<std::string, std::string>{
              {"TF_CONFIG", R"({"cluster":{"chief":["127.0.0.1:9100"],"ps":["127.0.0.1:9101"],)"
                            R"("worker":["127.0.0.1:9102","127.0.0.1:9103"]},)"
                            R"("task":{"type":"ps","index":0},"environment":"cloud"})"}});
    // Resumed with other ports, the same replicas get the new ones, in the same order.
    kftrain::backend::local::set_ports(env, tf.kind, kftrain::manifest::Framework::tensorflow,
                                       Ports{1, 2, 7000});
    CHECK(
        env["TF_CONFIG"] ==
        R"({"cluster":{"chief":["127.0.0.1:7000"],"ps":["127.0.0.1:7001"],"worker":["127.0.0.1:7002","127.0.0.1:7003"]},"task":{"type":"ps","index":0},"environment":"cloud"})");
    tf.roles.reset();
    tf.replicas = 1;
    CHECK(operator_environment(tf, 0, ports).empty());
}
