// What submit stamps on a cluster job for its record: who submitted it and the estimate.
#include "manifest/render/stamp.h"

#include <catch2/catch.hpp>

#include "manifest/render/job_label.h"

namespace kftrain::test {

TEST_CASE("a kubeconfig user becomes a valid label value, or none", "[manifest][history]") {
    struct Case {
        const char* user;
        const char* label;
    };
    const Case cases[] = {
        {"alice", "alice"},
        {"system:admin", "system-admin"},
        {"oidc:alice@example.com", "oidc-alice-example.com"},
        {"-_x_-", "x"},
        {":::", ""},
        {"", ""},
        {"arn:aws:iam::123456789012:role/very-long-role-name-for-the-platform-team-admins",
         "arn-aws-iam--123456789012-role-very-long-role-name-for-the-plat"},
    };
    for (const Case& c : cases) {
        INFO(c.user);
        CHECK(manifest::label_value_of(c.user) == c.label);
        CHECK(manifest::label_value_of(c.user).size() <= 63);
    }
}

TEST_CASE("submit's stamp is placed in the job's metadata as typed nodes", "[manifest][history]") {
    YAML::Node job = YAML::Load("kind: PyTorchJob\nmetadata:\n  name: x\n  labels:\n    a: b\n");
    manifest::stamp_submission(job, "system:admin", 12.5);
    CHECK(job["metadata"]["labels"]["a"].as<std::string>() == "b");
    CHECK(job["metadata"]["labels"][manifest::k_submitted_by_label].as<std::string>() ==
          "system-admin");
    CHECK(job["metadata"]["annotations"][manifest::k_estimated_cost_annotation].as<std::string>() ==
          "12.5000");

    YAML::Node bare = YAML::Load("kind: PyTorchJob\nmetadata:\n  name: x\n");
    manifest::stamp_submission(bare, "", std::nullopt);
    CHECK_FALSE(bare["metadata"]["labels"]);
    CHECK_FALSE(bare["metadata"]["annotations"]);
}

}  // namespace kftrain::test
