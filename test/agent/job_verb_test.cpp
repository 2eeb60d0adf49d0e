// What the MCP server's budget prices of a rendered job: every replica it runs, of any kind.
#include "agent/job_verb.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

using nlohmann::json;

TEST_CASE("the budget counts every replica type of every kind", "[mcp][budget]") {
    const json tfjob = {{"kind", "TFJob"},
                        {"spec",
                         {{"tfReplicaSpecs",
                           {{"Chief", {{"replicas", 1}}},
                            {"Worker", {{"replicas", 4998}}},
                            {"PS", {{"replicas", 1}}}}}}}};
    CHECK(kftrain::agent::manifest_replicas(tfjob) == 5000);
    const json xgboost = {
        {"kind", "XGBoostJob"},
        {"spec",
         {{"xgbReplicaSpecs", {{"Master", {{"replicas", 1}}}, {"Worker", {{"replicas", 7}}}}}}}};
    CHECK(kftrain::agent::manifest_replicas(xgboost) == 8);
    const json jax = {{"kind", "JAXJob"},
                      {"spec", {{"jaxReplicaSpecs", {{"Worker", {{"replicas", 16}}}}}}}};
    CHECK(kftrain::agent::manifest_replicas(jax) == 16);
    const json pytorch = {
        {"kind", "PyTorchJob"},
        {"spec",
         {{"pytorchReplicaSpecs", {{"Master", {{"replicas", 1}}}, {"Worker", json::object()}}}}}};
    CHECK(kftrain::agent::manifest_replicas(pytorch) == 2);  // a type without replicas runs one
    const json trainjob = {{"kind", "TrainJob"}, {"spec", {{"trainer", {{"numNodes", 3}}}}}};
    CHECK(kftrain::agent::manifest_replicas(trainjob) == 3);
}
