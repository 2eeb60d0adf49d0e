#include "estimate/plan.h"

#include <catch2/catch.hpp>
#include <string>

using namespace kftrain::estimate;

namespace {

PriceCatalog plan_prices() {
    PriceCatalog c;
    c.file = "prices.yaml";
    c.source = "test prices";
    c.gpus["a100"] = GpuPrice{"p4d.24xlarge", 4.0, 8, 600e9, 50e9};
    c.gpus["t4"] = GpuPrice{"g4dn.xlarge", 0.5, 1, std::nullopt, std::nullopt};
    c.cpu = CpuPrice{"n2", 0.03, 0.004, std::nullopt};
    return c;
}

JobFacts cpu_job() {
    JobFacts j;
    j.name = "mnist-ddp";
    j.replicas = 3;
    j.cpu_cores = 2;
    j.memory_bytes = 4.0 * 1024 * 1024 * 1024;
    j.model = "mnist-cnn";
    j.dataset = "mnist";
    j.batch_size = 64;
    j.epochs = 2;
    return j;
}

Profile measured_profile(int world_size) {
    Profile p;
    p.model = "mnist-cnn";
    p.dataset = "mnist";
    p.parameters = 1199882;
    p.gradient_bytes = 4799528;
    p.batch_size = 32;
    p.threads = 2;
    p.world_size = world_size;
    p.compute_s_per_step = 0.05;
    p.backward_s_per_step = 0.03;
    if (world_size > 1) {
        p.allreduce_bandwidth_bytes_per_s = 1.5e9;
        p.overlap_fraction = 0.5;
    }
    p.source = "profile.json";
    return p;
}

const Assumption* find(const Plan& plan, const std::string& name) {
    for (const Assumption& a : plan.assumptions) {
        if (a.name == name) {
            return &a;
        }
    }
    return nullptr;
}

}  // namespace

TEST_CASE("estimate plan without a profile uses the built-in one and says so", "[estimate]") {
    const auto plan = make_plan(cpu_job(), {}, {}, plan_prices());
    REQUIRE(plan.ok());
    CHECK_FALSE(plan->profile.measured);
    CHECK(plan->profile.parameters == 1199882);
    REQUIRE(find(*plan, "device speed"));
    CHECK(find(*plan, "device speed")->source == "assumed: 2 CPU cores at 10 GFLOP/s each");
    CHECK(find(*plan, "all-reduce overlap")->value == "0%");
}

TEST_CASE("estimate plan compares 1, 2, 4, 8, 16 and the job's replicas by default", "[estimate]") {
    const auto plan = make_plan(cpu_job(), {}, {}, plan_prices());
    REQUIRE(plan.ok());
    CHECK(plan->input.replicas == std::vector<int>{1, 2, 3, 4, 8, 16});
    PlanFlags flags;
    flags.workers = {8, 2, 2, 32};
    CHECK(make_plan(cpu_job(), flags, {}, plan_prices())->input.replicas ==
          std::vector<int>{2, 8, 32});
}

TEST_CASE("estimate plan takes samples per epoch as the trainer does", "[estimate]") {
    struct Case {
        std::string dataset;
        int64_t samples;
        int64_t expected;
    };
    const Case cases[] = {{"mnist", 0, 60000},   {"mnist", 1000, 1000},  {"mnist", 90000, 60000},
                          {"cifar10", 0, 50000}, {"synthetic", 0, 2048}, {"synthetic", 9000, 9000}};
    for (const auto& c : cases) {
        INFO(c.dataset << " samples " << c.samples);
        JobFacts job = cpu_job();
        job.dataset = c.dataset;
        job.samples = c.samples;
        CHECK(make_plan(job, {}, {}, plan_prices())->input.samples == c.expected);
    }
}

TEST_CASE("estimate plan prices CPU replicas by cores and memory", "[estimate]") {
    const auto plan = make_plan(cpu_job(), {}, {}, plan_prices());
    REQUIRE(plan->input.price_per_replica_hour);
    CHECK(*plan->input.price_per_replica_hour == Approx(2 * 0.03 + 4 * 0.004));
    CHECK(plan->input.links.replicas_per_node == 1);
}

TEST_CASE("estimate plan prices GPU replicas by their share of a node", "[estimate]") {
    JobFacts job = cpu_job();
    job.gpus = 2;
    PlanFlags flags;
    flags.gpu = "a100";
    const auto plan = make_plan(job, flags, {}, plan_prices());
    REQUIRE(plan.ok());
    CHECK(*plan->input.price_per_replica_hour == Approx(8.0));
    CHECK(plan->input.links.replicas_per_node == 4);
    CHECK(plan->input.links.intra_node_bytes_per_s == 600e9);
    CHECK(plan->input.links.inter_node_bytes_per_s == 50e9);
    CHECK(find(*plan, "device speed")->source ==
          "assumed: 2 x a100: 40% of 19.5 TFLOP/s FP32 peak each");
}

TEST_CASE("estimate plan shares a replica's assumed speed among its processes", "[estimate]") {
    JobFacts job = cpu_job();
    job.gpus = 4;
    job.procs_per_replica = 4;
    PlanFlags flags;
    flags.gpu = "a100";
    const auto plan = make_plan(job, flags, {}, plan_prices());
    REQUIRE(plan.ok());
    CHECK(find(*plan, "device speed")->value == "7.8 TFLOP/s");
    CHECK(find(*plan, "device speed")->source ==
          "assumed: 4 x a100: 40% of 19.5 TFLOP/s FP32 peak each, shared by 4 processes");
}

TEST_CASE("estimate plan notes a profile measured with other threads than the job's cores",
          "[estimate]") {
    JobFacts job = cpu_job();
    job.cpu_cores = 8;
    const auto plan = make_plan(job, {}, {measured_profile(1)}, plan_prices());
    REQUIRE(find(*plan, "threads"));
    CHECK(find(*plan, "threads")->value == "2 measured, 8 cores per process");
    CHECK(find(*make_plan(cpu_job(), {}, {measured_profile(1)}, plan_prices()), "threads") ==
          nullptr);
}

TEST_CASE("estimate plan gives a CPU job one GPU per replica with --gpu, and says so",
          "[estimate]") {
    PlanFlags flags;
    flags.gpu = "t4";
    const auto plan = make_plan(cpu_job(), flags, {}, plan_prices());
    REQUIRE(plan.ok());
    CHECK(plan->gpus_per_replica == 1);
    CHECK(*plan->input.price_per_replica_hour == Approx(0.5));
    REQUIRE(find(*plan, "GPUs per replica"));
    CHECK(find(*plan, "GPUs per replica")->source ==
          "assumed: --gpu given and resources.gpus is 0");
}

TEST_CASE("estimate plan rejects GPU jobs it cannot price", "[estimate]") {
    struct Case {
        std::string name;
        int gpus;
        std::string gpu;
        std::string message;
    };
    const Case cases[] = {
        {"no --gpu", 1, "",
         "--gpu: the job asks for 1 GPU(s) per replica; name their type to estimate it (one of "
         "a100, t4) (got nothing)"},
        {"unknown type", 1, "x100",
         "--gpu: prices.yaml has no such GPU type (one of a100, t4) "
         "(got x100)"},
        {"more than a node", 2, "t4",
         "resources.gpus: a replica must fit one g4dn.xlarge node of 1 GPUs (got 2)"},
    };
    for (const auto& c : cases) {
        INFO(c.name);
        JobFacts job = cpu_job();
        job.gpus = c.gpus;
        PlanFlags flags;
        flags.gpu = c.gpu;
        const auto plan = make_plan(job, flags, {}, plan_prices());
        REQUIRE_FALSE(plan.ok());
        CHECK(plan.error() == c.message);
    }
}

TEST_CASE("estimate plan scales a measured profile to the job's batch", "[estimate]") {
    const auto plan = make_plan(cpu_job(), {}, {measured_profile(1)}, plan_prices());
    REQUIRE(plan.ok());
    CHECK(plan->profile.measured);
    CHECK(plan->input.step.compute_s == Approx(0.1));  // batch 32 -> 64
    CHECK(plan->input.step.backward_s == Approx(0.06));
    CHECK(plan->input.step.overlap_fraction == 0.0);
    CHECK(find(*plan, "device speed") == nullptr);
    CHECK(find(*plan, "batch scaling") != nullptr);
}

TEST_CASE("estimate plan takes bandwidth and overlap measured at two replicas", "[estimate]") {
    const auto plan = make_plan(cpu_job(), {}, {measured_profile(2)}, plan_prices());
    REQUIRE(plan.ok());
    CHECK(plan->input.links.intra_node_bytes_per_s == 1.5e9);
    CHECK(plan->input.step.overlap_fraction == 0.5);
    CHECK(find(*plan, "intra-node bandwidth")->source == "measured: profile.json at world size 2");
}

TEST_CASE("estimate plan halves the gradient bytes where gradCompression puts 16 bits on the wire",
          "[estimate]") {
    struct Case {
        std::string compression;
        bool gpu;
        bool local;
        int64_t bytes;
        std::string why;
    };
    const int64_t full = 4799528;
    const std::vector<Case> cases{
        {"none", false, false, full, ""},
        {"fp16", false, false, full / 2,
         "trainer.gradCompression fp16: half the gradients on the wire"},
        {"bf16", true, false, full / 2,
         "trainer.gradCompression bf16: half the gradients on the wire"},
        {"bf16", false, false, full,
         "trainer.gradCompression bf16: not halved, Gloo in libtorch 1.13 sends it as fp32"},
        {"fp16", false, true, full,
         "trainer.gradCompression fp16: not halved, the replicas share this machine's memory "
         "(fp32)"},
        {"fp16", true, true, full / 2,
         "trainer.gradCompression fp16: half the gradients on the wire"},
    };
    for (const auto& c : cases) {
        INFO(c.compression << " gpu " << c.gpu << " local " << c.local);
        JobFacts job = cpu_job();
        job.grad_compression = c.compression;
        PlanFlags flags;
        flags.local = c.local;
        if (c.gpu) {
            flags.gpu = "t4";
        }
        const auto plan = make_plan(job, flags, {measured_profile(1)}, plan_prices());
        REQUIRE(plan.ok());
        CHECK(plan->input.step.gradient_bytes == c.bytes);
        const std::string source = find(*plan, "gradients per step")->source;
        if (c.why.empty()) {
            CHECK(source.find("gradCompression") == std::string::npos);
        } else {
            CHECK(source.rfind(c.why + "; measured: profile.json", 0) == 0);
        }
    }
}

TEST_CASE("estimate plan lets flags override measurements and defaults", "[estimate]") {
    PlanFlags flags;
    flags.intra_node_bytes_per_s = 3e9;
    flags.network_bytes_per_s = 12.5e9;
    flags.latency_s = 1e-4;
    flags.replicas_per_node = 2;
    flags.startup_s = 120;
    const auto plan = make_plan(cpu_job(), flags, {measured_profile(2)}, plan_prices());
    REQUIRE(plan.ok());
    const Links& l = plan->input.links;
    CHECK(l.intra_node_bytes_per_s == 3e9);
    CHECK(l.inter_node_bytes_per_s == 12.5e9);
    CHECK(l.latency_s == 1e-4);
    CHECK(l.replicas_per_node == 2);
    CHECK(plan->input.startup_s == 120);
    CHECK(find(*plan, "inter-node bandwidth")->source == "flag: --network");
}

TEST_CASE("estimate plan puts every --local replica on one machine", "[estimate]") {
    PlanFlags flags;
    flags.local = true;
    const auto plan = make_plan(cpu_job(), flags, {}, plan_prices());
    CHECK(plan->input.links.replicas_per_node == 0);
    CHECK(plan->input.startup_s == k_default_local_startup_s);
}

TEST_CASE("estimate plan refuses a profile of another model", "[estimate]") {
    Profile p = measured_profile(1);
    p.model = "resnet18";
    const auto plan = make_plan(cpu_job(), {}, {p}, plan_prices());
    REQUIRE_FALSE(plan.ok());
    CHECK(plan.error() ==
          "--profile: profile.json was measured with model resnet18, but the job trains "
          "mnist-cnn (got resnet18)");
}

TEST_CASE("estimate plan takes a whole run's extra costs from the profile", "[estimate]") {
    Profile p = measured_profile(1);
    p.batch_size = 64;
    p.startup_s = 0.9;
    p.warmup_steps = 4;
    p.warmup_s = 0.5;  // 4 x 0.05 at the warm rate: 0.3 more
    p.eval_warmup_s = 0.2;
    p.eval_s_per_sample = 0.0004;
    p.checkpoint_bytes = 9'600'000;
    p.checkpoint_s = 0.05;
    JobFacts job = cpu_job();
    job.checkpoints = true;
    job.checkpoint_every = 100;
    PlanFlags local;
    local.local = true;
    const auto plan = make_plan(job, local, {p}, plan_prices());
    REQUIRE(plan.ok());
    const RunCost& run = plan->input.run;
    CHECK(run.warmup_extra_s == Approx(0.5));
    CHECK(run.eval_samples == 10000);  // the MNIST test set
    CHECK(run.eval_s_per_sample == 0.0004);
    CHECK(run.checkpoints);
    CHECK(run.checkpoint_every == 100);
    CHECK(run.checkpoint_s == 0.05);
    CHECK(plan->input.startup_s == 0.9);  // --local: the process start alone
    CHECK(find(*plan, "start-up overhead")->source ==
          "measured: profile.json: process start to first step at world size 1");
    CHECK(find(*plan, "checkpoint")->source ==
          "measured: profile.json (9.6 MB); written at every epoch's end and every 100 steps "
          "(trainer.checkpointEvery)");
    const auto cluster = make_plan(job, {}, {p}, plan_prices());
    CHECK(cluster->input.startup_s == Approx(k_default_startup_s + 0.9));
}

TEST_CASE("estimate plan assumes what an older or built-in profile does not hold", "[estimate]") {
    JobFacts job = cpu_job();
    job.dataset = "synthetic";
    job.samples = 5000;
    job.checkpoints = true;
    Profile older = measured_profile(1);
    older.forward_s_per_step = 0.02;  // batch 32
    const auto plan = make_plan(job, {}, {older}, plan_prices());
    REQUIRE(plan.ok());
    CHECK(plan->input.run.eval_samples == 1000);  // a fifth of the synthetic samples
    CHECK(plan->input.run.warmup_extra_s == 0);
    // Evaluation at the forward time of a training sample (0.02 s per 32 samples).
    CHECK(plan->input.run.eval_s_per_sample == Approx(0.02 / 32));
    CHECK(find(*plan, "evaluation per test sample")->source ==
          "assumed: the profile's forward time per training sample");
    CHECK(find(*plan, "checkpoint")->source.rfind("assumed: 9.6 MB", 0) == 0);
    CHECK(plan->input.run.checkpoint_s == Approx(2 * 4799528 / 200e6));
    CHECK(plan->input.links.rendezvous_s == k_default_rendezvous_s);
    job.checkpoints = false;
    CHECK(find(*make_plan(job, {}, {}, plan_prices()), "checkpoints")->value == "none");
}

TEST_CASE("estimate plan uses a profile at two ranks for that size and the rendezvous",
          "[estimate]") {
    Profile one = measured_profile(1);
    one.batch_size = 64;
    one.startup_s = 0.8;
    Profile two = measured_profile(2);
    two.batch_size = 64;
    two.source = "profile-2.json";
    two.startup_s = 1.1;
    two.compute_s_per_step = 0.06;
    two.allreduce_s_per_step = 0.02;
    two.samples_per_sec = 1600;  // 64 x 2 / 0.08 s
    const auto plan = make_plan(cpu_job(), {}, {two, one}, plan_prices());
    REQUIRE(plan.ok());
    CHECK(plan->profile.source == "profile.json");  // compute from the smallest world size
    CHECK(plan->input.links.intra_node_bytes_per_s == 1.5e9);
    CHECK(plan->input.links.rendezvous_s == Approx(0.3));
    CHECK(plan->input.step.overlap_fraction == 0.5);  // measured where there was a peer
    CHECK(find(*plan, "all-reduce overlap")->source.rfind("measured: profile-2.json", 0) == 0);
    REQUIRE(plan->input.measured_steps.size() == 1);
    CHECK(plan->input.measured_steps[0].world_size == 2);
    CHECK(plan->input.measured_steps[0].step_s == Approx(0.08));
    CHECK(find(*plan, "step at world size 2")->source ==
          "measured: profile-2.json (compute 60ms, all-reduce 20ms alone, overlapped)");
    two.batch_size = 32;
    const auto other_batch = make_plan(cpu_job(), {}, {one, two}, plan_prices());
    CHECK(other_batch->input.measured_steps.empty());
    CHECK(find(*other_batch, "step at world size 2")->value == "modelled");
}

TEST_CASE("estimate plan refuses profiles of two models", "[estimate]") {
    Profile one = measured_profile(1);
    Profile other = measured_profile(2);
    other.model = "mlp";
    other.source = "mlp.json";
    const auto models = make_plan(cpu_job(), {}, {one, other}, plan_prices());
    REQUIRE_FALSE(models.ok());
    CHECK(models.error() ==
          "--profile: mlp.json was measured with model mlp, profile.json with mnist-cnn; give "
          "profiles of one model (got mlp.json)");
}

TEST_CASE("estimate plan takes the median of repeated profiles at one world size", "[estimate]") {
    // Three measurements at 1 rank, one caught in a slow spell of the machine.
    Profile a = measured_profile(1);
    a.compute_s_per_step = 0.025;
    a.startup_s = 1.0;
    Profile slow = a;
    slow.source = "slow.json";
    slow.compute_s_per_step = 0.040;
    slow.startup_s = 2.0;
    Profile c = a;
    c.source = "c.json";
    c.compute_s_per_step = 0.026;
    c.startup_s = 1.1;
    const auto plan = make_plan(cpu_job(), {}, {slow, a, c}, plan_prices());
    REQUIRE(plan.ok());
    // The job's batch is 64, the profiles' 32: compute scales from the median, 26 ms.
    CHECK(plan->input.step.compute_s == Approx(0.026 * 2));
    CHECK(plan->input.startup_s == Approx(k_default_startup_s + 1.1));
    CHECK(plan->profile.source ==
          "median of 3 (compute per step 25ms to 40ms): slow.json, profile.json, c.json");
    CHECK(find(*plan, "compute per step")->source.rfind("measured: median of 3 (", 0) == 0);
    // Buckets sized by --bucket-mb auto differ from start to start: such repeats combine.
    c.bucket_bytes = 2127872;
    a.bucket_bytes = 477184;
    REQUIRE(make_plan(cpu_job(), {}, {a, c}, plan_prices()).ok());
    // Repeats must be measured alike; the field that differs is named.
    c.threads = 1;
    const auto unlike = make_plan(cpu_job(), {}, {a, c}, plan_prices());
    REQUIRE_FALSE(unlike.ok());
    CHECK(unlike.error() ==
          "--profile: profile.json and c.json were both measured at world size 1 but with "
          "threads 2 and 1; repeated profiles of one world size must be measured alike (got "
          "c.json)");
}
