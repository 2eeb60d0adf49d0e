#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "estimate/range/range.h"

namespace kftrain::estimate {

// What one training step costs one process, at the batch size it will train with.
struct StepCost {
    double compute_s = 0;         // forward + backward + optimizer
    double backward_s = 0;        // the part all-reduce can hide behind
    int64_t gradient_bytes = 0;   // all-reduced every step
    double overlap_fraction = 0;  // share of all-reduce hidden behind backward, 0..1
};

// What a whole run costs besides its warm steps; a 0 leaves that part out.
struct RunCost {
    double warmup_extra_s = 0;     // the first steps' time over that of warm ones, once a run
    int64_t eval_samples = 0;      // test samples, split over the processes after every epoch
    double eval_s_per_sample = 0;  // evaluating one of them on one process
    bool checkpoints = false;      // trainer.checkpointDir set: rank 0 writes at every epoch end
    int64_t checkpoint_every = 0;  // and every this many steps (0: at epoch ends only)
    double checkpoint_s = 0;       // writing one; the other ranks wait for it
};

// The links between processes: one bandwidth inside a node, another between nodes.
struct Links {
    double intra_node_bytes_per_s = 0;
    double inter_node_bytes_per_s = 0;
    double latency_s = 0;       // per ring hop
    int replicas_per_node = 0;  // 0: every size fits one node
    double rendezvous_s = 0;    // connecting the processes, once a run of 2 or more
};

// A step measured at one world size by a profile at that size: used there instead of the
// model, whose compute and all-reduce it already holds with the contention between them.
struct MeasuredStep {
    int world_size = 0;
    double compute_s = 0;
    double allreduce_s = 0;  // alone
    double step_s = 0;       // whole, all-reduce overlapping backward
    Spread spread;           // of its blocks of whole steps
};

// Everything the model needs, already resolved from the job, profile, flags and prices.
struct EstimateInput {
    StepCost step;
    int batch_size = 1;         // per process
    int procs_per_replica = 1;  // nprocPerNode
    int64_t samples = 0;        // training samples per epoch
    int epochs = 1;
    double startup_s = 0;  // scheduling, image pull, process start and rendezvous, once
    // Of startup_s, what was given or assumed rather than measured: the range leaves it alone.
    double unmeasured_s = 0;
    Spread compute_spread;  // of the measured compute's blocks of steps (unknown: no range)
    RunCost run;
    std::vector<MeasuredStep> measured_steps;  // at most one per world size
    Links links;
    std::optional<double> price_per_replica_hour;
    std::vector<int> replicas;  // the sizes to compare, each >= 1
};

// The estimate for one number of replicas.
struct SizeEstimate {
    int replicas = 0;
    int world_size = 0;
    bool inter_node = false;
    int64_t global_batch = 0;
    int64_t steps_per_epoch = 0;
    double compute_s = 0;    // per step
    double allreduce_s = 0;  // per step, before overlap
    double hidden_s = 0;     // of allreduce_s, hidden behind backward
    double step_s = 0;
    bool step_measured = false;        // taken from a profile at this world size
    bool extrapolated = false;         // beyond the sizes a program was measured at
    double epoch_s = 0;                // its training steps
    double rendezvous_s = 0;           // once, at world size 2 or more
    double eval_s = 0;                 // the evaluation after each epoch
    int64_t checkpoints = 0;           // written in the whole run
    double checkpoint_s = 0;           // all of them together
    double total_s = 0;                // start-up, warm-up, epochs, evaluations and checkpoints
    double speedup = 1;                // total time at 1 replica / total time here
    double efficiency = 1;             // speedup / replicas
    std::optional<double> cost;        // replicas x price per replica-hour x total hours
    Spread spread;                     // of the measured blocks its range comes from
    std::optional<Range> total_range;  // total_s's low and high end (range.h); none: unknown
    std::optional<Range> cost_range;   // cost's, where both are known
};

// Fill a size's range of total time and of cost from its spread; unmeasured_s of its total
// was given or assumed.
void set_range(SizeEstimate& s, double unmeasured_s);

// The estimate for every size, with the fastest and the cheapest marked.
struct Estimate {
    std::vector<SizeEstimate> sizes;
    std::size_t fastest = 0;              // index into sizes
    std::optional<std::size_t> cheapest;  // unset without a price
};

// Return whether a is below b beyond rounding (by a relative 1e-9): how times and costs are
// compared, so that two sizes of equal cost tie.
bool clearly_less(double a, double b);

// Return the time of one ring all-reduce of bytes over world processes:
// 2(P-1)/P x bytes / bandwidth + 2(P-1) x latency; 0 for one process.
double ring_allreduce_s(int64_t bytes, int world, double bytes_per_s, double latency_s);

// Return how many checkpoints a run writes: one at every epoch's end, and one every `every`
// steps (0: none) except where that step ends an epoch; 0 without checkpoints.
int64_t checkpoint_count(bool checkpoints, int64_t every, int64_t steps_per_epoch, int epochs);

// Estimate one size.
SizeEstimate estimate_size(const EstimateInput& input, int replicas);

// Fill each size's speedup and efficiency against one replica's total, and mark the fastest
// and, when priced (every size has a cost), the cheapest; of sizes equal within rounding, the
// earlier one is marked.
Estimate rank_sizes(std::vector<SizeEstimate> sizes, double one_replica_s, bool priced);

// Estimate every size of input.replicas (in their order) and mark the fastest and the
// cheapest; of sizes equal within rounding, the earlier one is marked.
Estimate estimate(const EstimateInput& input);

}  // namespace kftrain::estimate
