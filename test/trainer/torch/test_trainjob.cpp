// kftrain-trainer started as Kubeflow Trainer v2 starts a TrainJob's nodes: PET_* only (no
// RANK, WORLD_SIZE or MASTER_ADDR), and rank 0 posting trainerStatus to the controller.

#include "trainer/support/status_test_server.h"
#include "trainer_process.h"

using namespace trainer_test;
using namespace std::chrono_literals;

namespace {

using Env = std::map<std::string, std::string>;

std::vector<std::string> mlp_args() {
    return {"--model",      "mlp",  "--samples",   "600", "--batch-size", "32", "--epochs",  "2",
            "--log-format", "json", "--log-every", "5",   "--threads",    "1",  "--timeout", "60"};
}

// Start the nodes of a TrainJob on 127.0.0.1, each with the environment v2 gives a node.
std::vector<Rank> start_trainjob(const std::string& dir, int nnodes, int nproc, Env env = {}) {
    env["PET_NNODES"] = std::to_string(nnodes);
    env["PET_NPROC_PER_NODE"] = std::to_string(nproc);
    env["PET_MASTER_ADDR"] = "127.0.0.1";
    env["PET_MASTER_PORT"] = std::to_string(free_port());
    env["KFTRAIN_PARAMS_OUT"] = dir + "/params";
    std::vector<Rank> nodes;
    for (int node = 0; node < nnodes; ++node) {
        env["PET_NODE_RANK"] = std::to_string(node);
        nodes.push_back(start_trainer(dir, "node" + std::to_string(node), mlp_args(), env));
    }
    return nodes;
}

// Return the ranks of the start events a node printed, in order.
std::vector<int> start_ranks(const Rank& node, int world) {
    std::vector<int> out;
    for (const auto& e : events(node, "start")) {
        CHECK(e["world_size"] == world);
        out.push_back(e["rank"].get<int>());
    }
    std::sort(out.begin(), out.end());
    return out;
}

void check_same_params(const std::string& dir, int world) {
    const auto first = read_params(dir + "/params.rank0");
    REQUIRE(!first.empty());
    for (int r = 1; r < world; ++r) {
        CHECK(read_params(dir + "/params.rank" + std::to_string(r)) == first);
    }
}

// Hold a trainerStatus endpoint and the variables the controller injects for it.
struct Controller {
    explicit Controller(const std::string& dir) : server(dir) {
        write_file(dir + "/token", "jwt-of-the-trainjob\n");
        env = {{"KUBEFLOW_TRAINER_SERVER_URL", server.url()},
               {"KUBEFLOW_TRAINER_SERVER_CA_CERT", server.ca_cert()},
               {"KUBEFLOW_TRAINER_SERVER_TOKEN", dir + "/token"}};
    }
    StatusTestServer server;
    Env env;
};

int posts_at(const std::vector<nlohmann::json>& statuses, int percent) {
    return static_cast<int>(std::count_if(statuses.begin(), statuses.end(), [&](const auto& s) {
        return s.value("progressPercentage", -1) == percent;
    }));
}

}  // namespace

TEST_CASE("two TrainJob nodes started from PET_* alone train together as ranks 0 and 1",
          "[trainer][trainjob]") {
    const std::string dir = make_temp_dir();
    const auto nodes = start_trainjob(dir, 2, 1);
    wait_all(nodes);
    CHECK(start_ranks(nodes[0], 2) == std::vector<int>{0});
    CHECK(start_ranks(nodes[1], 2) == std::vector<int>{1});
    CHECK(events(nodes[0], "finish").size() == 1);
    CHECK(events(nodes[1], "progress").empty());
    check_same_params(dir, 2);
}

TEST_CASE("two TrainJob nodes of two processes each train as ranks 0 to 3", "[trainer][trainjob]") {
    const std::string dir = make_temp_dir();
    const auto nodes = start_trainjob(dir, 2, 2);
    wait_all(nodes);
    CHECK(start_ranks(nodes[0], 4) == std::vector<int>{0, 1});
    CHECK(start_ranks(nodes[1], 4) == std::vector<int>{2, 3});
    CHECK(events(nodes[0], "finish").size() == 1);
    check_same_params(dir, 4);
}

TEST_CASE("rank 0 of a TrainJob posts trainerStatus to the controller, the last at 100%",
          "[trainer][trainjob][trainer_status]") {
    const std::string dir = make_temp_dir();
    Controller controller(dir);
    controller.server.http().require_authorization("Bearer jwt-of-the-trainjob");
    const auto nodes = start_trainjob(dir, 2, 1, controller.env);
    wait_all(nodes);
    const auto statuses = controller.server.statuses();
    REQUIRE(statuses.size() >= 2);
    CHECK(posts_at(statuses, 0) == 1);  // one start: rank 1 posts nothing
    CHECK(posts_at(statuses, 100) == 1);
    const auto& last = statuses.back();
    CHECK(last["progressPercentage"] == 100);
    CHECK(last["estimatedRemainingSeconds"] == 0);
    std::vector<std::string> names;
    for (const auto& m : last["metrics"]) {
        names.push_back(m["name"]);
    }
    CHECK(names == std::vector<std::string>{"loss", "accuracy", "samples_per_sec", "epoch",
                                            "eval_loss", "eval_accuracy"});
    const auto finish = events(nodes[0], "finish");
    REQUIRE(finish.size() == 1);
    CHECK(last["metrics"][3]["value"] == "2");
    for (const auto& r : controller.server.http().requests()) {
        CHECK(r.status == 200);
    }
    CHECK(controller.server.violations().empty());
    CHECK(events(nodes[0], "warning").empty());
    CHECK(events(nodes[1], "warning").empty());
}

TEST_CASE("a TrainJob whose status endpoint is down trains, exits 0 and warns once",
          "[trainer][trainjob][trainer_status]") {
    const std::string dir = make_temp_dir();
    Controller controller(dir);
    controller.server.http().fail(FailMode::refuse);
    const auto nodes = start_trainjob(dir, 1, 1, controller.env);
    wait_all(nodes);
    CHECK(events(nodes[0], "finish").size() == 1);
    const auto warnings = events(nodes[0], "warning");
    REQUIRE(warnings.size() == 1);
    CHECK_THAT(warnings[0]["message"].get<std::string>(),
               Catch::StartsWith("trainerStatus not posted to " + controller.server.url()));
    CHECK(controller.server.http().received() == 0);
}
