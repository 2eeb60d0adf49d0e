#include "trainer/startup/env.h"

#include <catch2/catch.hpp>
#include <map>

#include "trainer/process/local_launcher.h"
#include "trainer/support/fake_env.h"

using namespace kftrain::trainer;
using namespace kftrain::trainer::process;
using trainer_test::env_of;

TEST_CASE("no environment means one process training alone", "[trainer][env]") {
    auto env = parse_dist_env(env_of({}));
    REQUIRE(env.ok());
    CHECK(env->world_size == 1);
    CHECK(env->rank == 0);
    CHECK(env->spawn_local == 1);
}

TEST_CASE("the operator's variables give rank, world and master", "[trainer][env]") {
    auto env = parse_dist_env(env_of({{"MASTER_ADDR", "job-master-0"},
                                      {"MASTER_PORT", "23456"},
                                      {"WORLD_SIZE", "4"},
                                      {"RANK", "3"},
                                      {"GLOO_SOCKET_IFNAME", "eth0"}}));
    REQUIRE(env.ok());
    CHECK(env->master_addr == "job-master-0");
    CHECK(env->master_port == 23456);
    CHECK(env->world_size == 4);
    CHECK(env->rank == 3);
    CHECK(env->socket_ifname == "eth0");
}

TEST_CASE("PET_NPROC_PER_NODE > 1 makes the pod spawn its local ranks", "[trainer][env]") {
    std::map<std::string, std::string> vars{{"PET_NNODES", "2"},
                                            {"PET_NPROC_PER_NODE", "3"},
                                            {"PET_NODE_RANK", "1"},
                                            {"PET_MASTER_ADDR", "m"},
                                            {"PET_MASTER_PORT", "1234"},
                                            {"WORLD_SIZE", "2"},
                                            {"RANK", "1"}};
    auto parent = parse_dist_env(env_of(vars));
    REQUIRE(parent.ok());
    CHECK(parent->spawn_local == 3);
    CHECK(parent->world_size == 6);
    CHECK(parent->master_addr == "m");
    CHECK(parent->master_port == 1234);

    const auto child_vars = local_process_env(*parent, 2);
    CHECK(child_vars.at("RANK") == "5");
    CHECK(child_vars.at("LOCAL_RANK") == "2");
    CHECK(child_vars.at("WORLD_SIZE") == "6");
    for (const auto& [k, v] : child_vars) {
        vars[k] = v;
    }
    auto child = parse_dist_env(env_of(vars));
    REQUIRE(child.ok());
    CHECK(child->spawn_local == 1);
    CHECK(child->rank == 5);
    CHECK(child->local_rank == 2);
    CHECK(child->local_procs == 3);
    CHECK(child->world_size == 6);
}

TEST_CASE("PET_NPROC_PER_NODE alone spawns ranks that find their place", "[trainer][env]") {
    std::map<std::string, std::string> vars{{"PET_NPROC_PER_NODE", "2"}};
    auto parent = parse_dist_env(env_of(vars));
    REQUIRE(parent.ok());
    CHECK(parent->spawn_local == 2);
    CHECK(parent->world_size == 2);
    for (int local = 0; local < 2; ++local) {
        auto child_vars = vars;
        for (const auto& [k, v] : local_process_env(*parent, local)) {
            child_vars[k] = v;
        }
        auto child = parse_dist_env(env_of(child_vars));
        REQUIRE(child.ok());
        CHECK(child->rank == local);
        CHECK(child->node_rank == 0);
        CHECK(child->world_size == 2);
        CHECK(child->spawn_local == 1);
    }
}

TEST_CASE("bad environment values are named", "[trainer][env]") {
    auto env = parse_dist_env(env_of({{"WORLD_SIZE", "two"}}));
    REQUIRE_FALSE(env.ok());
    CHECK(env.error() == "WORLD_SIZE: must be an integer >= 1 (got two)");
    auto rank = parse_dist_env(env_of({{"WORLD_SIZE", "2"}, {"RANK", "2"}}));
    REQUIRE_FALSE(rank.ok());
    CHECK(rank.error() == "RANK: must be below WORLD_SIZE 2 (got 2)");
}

TEST_CASE("a loopback master means all ranks share this host's CPUs", "[trainer][env]") {
    auto local =
        parse_dist_env(env_of({{"MASTER_ADDR", "127.0.0.1"}, {"WORLD_SIZE", "3"}, {"RANK", "1"}}));
    REQUIRE(local.ok());
    CHECK(local->local_procs == 3);
    auto remote = parse_dist_env(
        env_of({{"MASTER_ADDR", "job-master-0"}, {"WORLD_SIZE", "3"}, {"RANK", "1"}}));
    REQUIRE(remote.ok());
    CHECK(remote->local_procs == 1);
    auto ipv6 =
        parse_dist_env(env_of({{"MASTER_ADDR", "::1"}, {"WORLD_SIZE", "3"}, {"RANK", "1"}}));
    REQUIRE(ipv6.ok());
    CHECK(ipv6->local_procs == 3);
}

TEST_CASE("PET_NPROC_PER_NODE auto or cpu from the operator runs one process per pod",
          "[trainer][env]") {
    for (const char* word : {"auto", "cpu"}) {
        INFO(word);
        std::map<std::string, std::string> vars{
            {"PET_NPROC_PER_NODE", word}, {"WORLD_SIZE", "4"}, {"RANK", "2"}};
        auto env = parse_dist_env(env_of(vars));
        REQUIRE(env.ok());
        CHECK(env->world_size == 4);
        CHECK(env->rank == 2);
        CHECK(env->spawn_local == 1);
    }
    auto gpu = parse_dist_env(env_of({{"PET_NPROC_PER_NODE", "gpu"}}));
    REQUIRE_FALSE(gpu.ok());
    CHECK(gpu.error() ==
          "PET_NPROC_PER_NODE: gpu needs a CUDA build of kftrain-trainer; this one runs on CPU "
          "(got gpu)");
}

TEST_CASE("PET_NPROC_PER_NODE gpu runs one process per CUDA device libtorch sees",
          "[trainer][env]") {
    int probes = 0;
    const TorchCudaProbe two_devices = [&probes] {
        ++probes;
        return TorchCuda{true, 2};
    };
    auto env = parse_dist_env(env_of({{"PET_NPROC_PER_NODE", "gpu"},
                                      {"PET_NNODES", "2"},
                                      {"PET_NODE_RANK", "1"},
                                      {"WORLD_SIZE", "2"},
                                      {"RANK", "1"}}),
                              two_devices);
    REQUIRE(env.ok());
    CHECK(env->spawn_local == 2);
    CHECK(env->local_procs == 2);
    CHECK(env->world_size == 4);
    CHECK(probes == 1);
    REQUIRE(parse_dist_env(env_of({{"PET_NPROC_PER_NODE", "3"}}), two_devices).ok());
    CHECK(probes == 1);  // only gpu asks libtorch
}

TEST_CASE("PET_NPROC_PER_NODE gpu where libtorch sees no CUDA device is named with why",
          "[trainer][env]") {
    const std::map<std::string, std::string> vars{{"PET_NPROC_PER_NODE", "gpu"}};
    auto none = parse_dist_env(env_of(vars), [] { return TorchCuda{true, 0}; });
    REQUIRE_FALSE(none.ok());
    CHECK(none.error() ==
          "PET_NPROC_PER_NODE: gpu needs a visible CUDA device; libtorch sees none (check "
          "CUDA_VISIBLE_DEVICES and the driver) (got gpu)");
    auto cpu_build = parse_dist_env(env_of(vars), [] { return TorchCuda{false, 0}; });
    REQUIRE_FALSE(cpu_build.ok());
    CHECK(cpu_build.error() ==
          "PET_NPROC_PER_NODE: gpu needs a CUDA build of kftrain-trainer; this one runs on CPU "
          "(got gpu)");
}

TEST_CASE("without LOCAL_RANK a loopback master makes the rank the local rank", "[trainer][env]") {
    auto here =
        parse_dist_env(env_of({{"MASTER_ADDR", "127.0.0.1"}, {"WORLD_SIZE", "3"}, {"RANK", "2"}}));
    REQUIRE(here.ok());
    CHECK(here->local_rank == 2);  // so the ranks of a one-host job take different GPUs
    auto given = parse_dist_env(env_of(
        {{"MASTER_ADDR", "127.0.0.1"}, {"WORLD_SIZE", "3"}, {"RANK", "2"}, {"LOCAL_RANK", "0"}}));
    REQUIRE(given.ok());
    CHECK(given->local_rank == 0);
    auto pod = parse_dist_env(
        env_of({{"MASTER_ADDR", "job-master-0"}, {"WORLD_SIZE", "3"}, {"RANK", "2"}}));
    REQUIRE(pod.ok());
    CHECK(pod->local_rank == 0);  // one process per pod: its only GPU
}

namespace {

using Vars = std::map<std::string, std::string>;

// What a node of a Trainer v2 TrainJob gets: PET_* only.
Vars trainjob_node(int nnodes, const std::string& nproc, int node_rank,
                   const std::string& master = "job-node-0-0.job") {
    return {{"PET_NNODES", std::to_string(nnodes)},
            {"PET_NPROC_PER_NODE", nproc},
            {"PET_NODE_RANK", std::to_string(node_rank)},
            {"PET_MASTER_ADDR", master},
            {"PET_MASTER_PORT", "29500"}};
}

Vars with(Vars vars, const Vars& more) {
    for (const auto& [k, v] : more) {
        vars[k] = v;
    }
    return vars;
}

// Hold one environment and where it puts this process.
struct PlaceCase {
    const char* name;
    Vars vars;
    int world_size;
    int rank;
    int local_rank;
    int spawn_local;
    int local_procs;
    const char* master_addr;
    int master_port;
};

}  // namespace

TEST_CASE("Trainer v2's PET_* variables alone place every process like torchrun",
          "[trainer][env]") {
    const PlaceCase cases[] = {
        {"PET only, one node of one process", trainjob_node(1, "1", 0), 1, 0, 0, 1, 1,
         "job-node-0-0.job", 29500},
        {"PET only, node rank 1 of 2", trainjob_node(2, "1", 1), 2, 1, 0, 1, 1, "job-node-0-0.job",
         29500},
        {"PET only, node rank 1 of 2 on a loopback master (local run)",
         trainjob_node(2, "1", 1, "127.0.0.1"), 2, 1, 1, 1, 2, "127.0.0.1", 29500},
        {"PET only, numProcPerNode auto runs one process per node", trainjob_node(3, "auto", 2), 3,
         2, 0, 1, 1, "job-node-0-0.job", 29500},
        {"PET only, nproc 2 on node 1 of 2 spawns its two ranks", trainjob_node(2, "2", 1), 4, 2, 0,
         2, 2, "job-node-0-0.job", 29500},
        {"PET only, MASTER_PORT alone still names the port",
         with(trainjob_node(2, "1", 0), {{"PET_MASTER_PORT", ""}, {"MASTER_PORT", "23456"}}), 2, 0,
         0, 1, 1, "job-node-0-0.job", 23456},
        {"v1 WORLD_SIZE and RANK win over PET_* with one process per pod",
         with(trainjob_node(2, "1", 1), {{"WORLD_SIZE", "4"},
                                         {"RANK", "3"},
                                         {"MASTER_ADDR", "job-master-0"},
                                         {"MASTER_PORT", "23456"}}),
         4, 3, 0, 1, 1, "job-master-0", 23456},
        {"v1 alone, as before",
         {{"WORLD_SIZE", "3"}, {"RANK", "2"}, {"MASTER_ADDR", "m"}},
         3,
         2,
         0,
         1,
         1,
         "m",
         29500},
        {"v1 with nprocPerNode 3: PET_* decide, as before",
         with(trainjob_node(2, "3", 1, "m"), {{"WORLD_SIZE", "2"}, {"RANK", "1"}}), 6, 3, 0, 3, 3,
         "m", 29500},
    };
    for (const auto& c : cases) {
        INFO(c.name);
        const auto env = parse_dist_env(env_of(c.vars));
        REQUIRE(env.ok());
        CHECK(env->world_size == c.world_size);
        CHECK(env->rank == c.rank);
        CHECK(env->local_rank == c.local_rank);
        CHECK(env->spawn_local == c.spawn_local);
        CHECK(env->local_procs == c.local_procs);
        CHECK(env->master_addr == c.master_addr);
        CHECK(env->master_port == c.master_port);
    }
}

TEST_CASE("a TrainJob node with nproc 2 gives its spawned ranks node_rank * nproc + local rank",
          "[trainer][env]") {
    const Vars node = trainjob_node(2, "2", 1);
    const auto parent = parse_dist_env(env_of(node));
    REQUIRE(parent.ok());
    REQUIRE(parent->spawn_local == 2);
    for (int local = 0; local < 2; ++local) {
        INFO("local rank " << local);
        const auto child = parse_dist_env(env_of(with(node, local_process_env(*parent, local))));
        REQUIRE(child.ok());
        CHECK(child->spawn_local == 1);
        CHECK(child->rank == 2 + local);
        CHECK(child->local_rank == local);
        CHECK(child->world_size == 4);
        CHECK(child->master_addr == "job-node-0-0.job");
    }
}

TEST_CASE("an elastic PyTorchJob's PET_NNODES range places ranks by the pods started",
          "[trainer][env]") {
    // What the Training Operator gives the first Worker of Master + 2 Workers with an
    // elasticPolicy of 1..3 and two processes per pod: PET_NNODES is the policy's range.
    const Vars worker{{"PET_NNODES", "1:3"},
                      {"PET_NPROC_PER_NODE", "2"},
                      {"PET_NODE_RANK", "1"},
                      {"PET_MASTER_ADDR", "job-master-0"},
                      {"PET_MASTER_PORT", "23456"},
                      {"WORLD_SIZE", "6"},
                      {"RANK", "1"},
                      {"MASTER_ADDR", "job-master-0"},
                      {"PET_RDZV_BACKEND", "c10d"},
                      {"MASTER_PORT", "23456"}};
    const auto env = parse_dist_env(env_of(worker));
    REQUIRE(env.ok());
    CHECK(env->world_size == 6);
    CHECK(env->node_rank == 1);
    CHECK(env->rank == 2);
    CHECK(env->spawn_local == 2);
    // A range of one number needs no WORLD_SIZE.
    const auto fixed =
        parse_dist_env(env_of(with(trainjob_node(2, "2", 1), {{"PET_NNODES", "2:2"}})));
    REQUIRE(fixed.ok());
    CHECK(fixed->world_size == 4);
}

TEST_CASE("bad PET_* values are named with the value", "[trainer][env]") {
    const std::pair<Vars, const char*> cases[] = {
        {trainjob_node(2, "1", 2), "PET_NODE_RANK must be < PET_NNODES (got 2 of 2)"},
        {trainjob_node(2, "4", 3), "PET_NODE_RANK must be < PET_NNODES (got 3 of 2)"},
        {with(trainjob_node(2, "1", 0), {{"PET_NNODES", "0"}}),
         "PET_NNODES: must be an integer >= 1 (got 0)"},
        {with(trainjob_node(2, "1", 0), {{"PET_NNODES", "1:3"}}),
         "PET_NNODES: a range needs WORLD_SIZE to say how many nodes started: kftrain-trainer "
         "does no elastic rendezvous (got 1:3)"},
        {with(trainjob_node(2, "1", 0), {{"PET_NNODES", "3:1"}}),
         "PET_NNODES: must be an integer >= 1 or MIN:MAX with 1 <= MIN <= MAX (got 3:1)"},
        {with(trainjob_node(2, "1", 0), {{"PET_NNODES", "2:"}}),
         "PET_NNODES: must be an integer >= 1 or MIN:MAX with 1 <= MIN <= MAX (got 2:)"},
        {with(trainjob_node(2, "2", 0), {{"PET_NNODES", "1:3"}, {"WORLD_SIZE", "5"}}),
         "WORLD_SIZE: must be a multiple of the 2 processes per node (PET_NPROC_PER_NODE) "
         "(got 5)"},
        {with(trainjob_node(2, "1", 0), {{"PET_NODE_RANK", "-1"}}),
         "PET_NODE_RANK: must be an integer >= 0 (got -1)"},
        {with(trainjob_node(2, "1", 0), {{"PET_MASTER_PORT", "http"}}),
         "PET_MASTER_PORT: must be a port from 1 to 65535 (got http)"},
        {with(trainjob_node(2, "1", 0), {{"PET_MASTER_PORT", "70000"}}),
         "PET_MASTER_PORT: must be a port from 1 to 65535 (got 70000)"},
        {trainjob_node(2, "0", 0), "PET_NPROC_PER_NODE: must be an integer >= 1 (got 0)"},
    };
    for (const auto& [vars, message] : cases) {
        INFO(message);
        const auto env = parse_dist_env(env_of(vars));
        REQUIRE_FALSE(env.ok());
        CHECK(env.error() == message);
    }
}

TEST_CASE("without PET_NODE_RANK a single node is node 0, as torchrun's default",
          "[trainer][env]") {
    // PET_NNODES 1 or unset: the one node there is, whatever else RANK says.
    const Vars single_node[] = {
        {{"PET_NPROC_PER_NODE", "2"}, {"PET_NNODES", "1"}, {"PET_MASTER_ADDR", "127.0.0.1"}},
        {{"PET_NPROC_PER_NODE", "2"}, {"PET_MASTER_ADDR", "127.0.0.1"}},
        {{"PET_NPROC_PER_NODE", "2"}, {"PET_NNODES", "1"}, {"RANK", "1"}},
    };
    for (const auto& vars : single_node) {
        const auto env = parse_dist_env(env_of(vars));
        REQUIRE(env.ok());
        CHECK(env->node_rank == 0);
        CHECK(env->world_size == 2);
        CHECK(env->spawn_local == 2);
    }
    // A node rank given still has to be one of the nodes.
    const auto out_of_range = parse_dist_env(
        env_of({{"PET_NPROC_PER_NODE", "2"}, {"PET_NNODES", "1"}, {"PET_NODE_RANK", "1"}}));
    REQUIRE_FALSE(out_of_range.ok());
    CHECK(out_of_range.error() == "PET_NODE_RANK must be < PET_NNODES (got 1 of 1)");
}
