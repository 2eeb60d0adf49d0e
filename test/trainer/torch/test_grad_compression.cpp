// --grad-compression: gradients all-reduced in fp16 or bf16, through the real program.
#include "trainer_process.h"

using namespace trainer_test;
using namespace std::chrono_literals;

namespace {

// Train mlp on 3000 synthetic digits on 2 ranks for 3 epochs; return rank 0's last test
// accuracy after checking that both ranks end with the same parameters.
double two_rank_accuracy(const std::string& compression) {
    const std::string dir = make_temp_dir();
    const auto ranks = start_job(dir, 2,
                                 {"--model", "mlp", "--samples", "3000", "--batch-size", "32",
                                  "--epochs", "3", "--log-format", "json", "--threads", "1",
                                  "--timeout", "60", "--grad-compression", compression},
                                 {{"KFTRAIN_PARAMS_OUT", dir + "/params"}});
    for (const auto& r : ranks) {
        INFO(compression << ": " << read_bytes(r.err_path));
        REQUIRE(wait_exit(r, 120s) == 0);
    }
    CHECK(read_params(dir + "/params.rank0") == read_params(dir + "/params.rank1"));
    if (compression != "none") {
        // Both ranks on this host: shared memory carries fp32, the gradients are only rounded.
        const auto warnings = events(ranks[0], "warning");
        REQUIRE(warnings.size() == 1);
        CHECK(warnings[0]["message"] ==
              "--grad-compression " + compression +
                  ": the ranks share this host's memory, with no network bytes to save; "
                  "gradients are rounded to " +
                  compression + " and summed as fp32");
    }
    const auto evals = events(ranks[0], "eval");
    REQUIRE(evals.size() == 3);
    return evals.back()["accuracy"].get<double>();
}

}  // namespace

TEST_CASE("2 ranks with fp16 or bf16 gradients reach the accuracy of fp32 gradients",
          "[trainer][compression]") {
    const double fp32 = two_rank_accuracy("none");
    CHECK(fp32 >= 0.85);
    for (const std::string compression : {"fp16", "bf16"}) {
        INFO(compression);
        CHECK(std::abs(two_rank_accuracy(compression) - fp32) <= 0.02);
    }
}

TEST_CASE("an unknown --grad-compression prints one error line and exits 2",
          "[trainer][compression]") {
    const std::string dir = make_temp_dir();
    const auto run = start_trainer(dir, "bad", {"--grad-compression", "int8"}, {});
    CHECK(wait_exit(run, 30s) == 2);
    CHECK(read_bytes(run.err_path) ==
          "kftrain-trainer: error: --grad-compression: must be one of none, fp16, bf16 (got "
          "int8)\n");
}

TEST_CASE("the benchmark profile records the compression and the bytes it all-reduces",
          "[trainer][compression][benchmark]") {
    const std::string dir = make_temp_dir();
    const auto profile =
        two_rank_mlp_profile(dir, {"--benchmark", "5", "--samples", "256", "--grad-compression",
                                   "fp16", "--backend", "gloo"});
    CHECK(profile["grad_compression"] == "fp16");
    CHECK(profile["backend"] == "gloo");
    CHECK(profile["allreduce_bytes_per_step"].get<int64_t>() * 2 ==
          profile["gradient_bytes"].get<int64_t>());
    CHECK(profile["allreduce_bandwidth_bytes_per_s"].get<double>() > 0);
}
