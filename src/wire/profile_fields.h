#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace kftrain::wire {

// The profile's JSON keys, spelled once for the writer (the trainer) and the reader (the
// estimate), in the order the trainer writes them.
namespace profile_key {
inline constexpr char k_model[] = "model";
inline constexpr char k_dataset[] = "dataset";
inline constexpr char k_parameters[] = "parameters";
inline constexpr char k_gradient_bytes[] = "gradient_bytes";
inline constexpr char k_batch_size[] = "batch_size";
inline constexpr char k_threads[] = "threads";
inline constexpr char k_world_size[] = "world_size";
inline constexpr char k_steps[] = "steps";
inline constexpr char k_warmup_steps[] = "warmup_steps";
inline constexpr char k_compute_s_per_step[] = "compute_s_per_step";
inline constexpr char k_compute_s_mean[] = "compute_s_mean";
inline constexpr char k_compute_s_stddev[] = "compute_s_stddev";
inline constexpr char k_compute_s_blocks[] = "compute_s_blocks";
inline constexpr char k_forward_s_per_step[] = "forward_s_per_step";
inline constexpr char k_backward_s_per_step[] = "backward_s_per_step";
inline constexpr char k_grad_compression[] = "grad_compression";
inline constexpr char k_backend[] = "backend";
inline constexpr char k_allreduce_bytes_per_step[] = "allreduce_bytes_per_step";
inline constexpr char k_allreduce_s_per_step[] = "allreduce_s_per_step";
inline constexpr char k_allreduce_bandwidth_bytes_per_s[] = "allreduce_bandwidth_bytes_per_s";
inline constexpr char k_overlap_fraction[] = "overlap_fraction";
inline constexpr char k_samples_per_sec[] = "samples_per_sec";
inline constexpr char k_step_s_blocks[] = "step_s_blocks";
inline constexpr char k_startup_s[] = "startup_s";
inline constexpr char k_warmup_s[] = "warmup_s";
inline constexpr char k_eval_s_per_sample[] = "eval_s_per_sample";
inline constexpr char k_eval_warmup_s[] = "eval_warmup_s";
inline constexpr char k_checkpoint_bytes[] = "checkpoint_bytes";
inline constexpr char k_checkpoint_s[] = "checkpoint_s";
inline constexpr char k_bucket_bytes[] = "bucket_bytes";
inline constexpr char k_buckets[] = "buckets";
inline constexpr char k_link_latency_s[] = "link_latency_s";
inline constexpr char k_link_bytes_per_s[] = "link_bytes_per_s";
inline constexpr char k_trainer_version[] = "trainer_version";
}  // namespace profile_key

// What one replica's training step costs: the fields of the profile JSON that
// `kftrain-trainer --benchmark` writes and `kftrain estimate` reads. Header-only, so the
// trainer (the writer) and the estimate (the reader) share one definition without linking.
struct ProfileFields {
    std::string model;
    std::string dataset;
    int64_t parameters = 0;
    int64_t gradient_bytes = 0;
    int batch_size = 0;
    int threads = 0;
    int world_size = 1;
    int64_t steps = 0;         // measured steps, after the warm-up
    int64_t warmup_steps = 0;  // steps run first and not counted (0 in older profiles)
    // Forward + backward + optimizer: the typical step, the median of the steps' means over
    // blocks of about 0.2 s (a slow spell of the machine over a few blocks leaves it alone).
    double compute_s_per_step = 0;
    double compute_s_mean = 0;    // the plain mean over every measured step (0 in older ones)
    double compute_s_stddev = 0;  // standard deviation of one step's compute time
    // The blocks' means behind compute_s_per_step, in the order run (empty in older
    // profiles): how far apart they ran gives the estimate its range.
    std::vector<double> compute_s_blocks;
    double forward_s_per_step = 0;
    double backward_s_per_step = 0;
    // --grad-compression (none|fp16|bf16) and the bytes one rank all-reduces per step: the
    // gradient bytes, half of them when compressed (0 at world size 1). Written by the
    // trainer; the estimate takes compression from the job file instead.
    std::string grad_compression = "none";
    // What carried the all-reduce: gloo, nccl or shm (shared memory between the ranks of one
    // host), none at world size 1. The estimate takes a measured bandwidth as intra-node.
    std::string backend = "none";
    int64_t allreduce_bytes_per_step = 0;
    double allreduce_s_per_step = 0;
    // Bus bandwidth of the all-reduce alone, per byte on the wire; unset at world size 1.
    std::optional<double> allreduce_bandwidth_bytes_per_s;
    std::optional<double> overlap_fraction;  // unset at world size 1
    double samples_per_sec = 0;
    // At world size 2 or more, the blocks' means of whole steps (all-reduce overlapping
    // backward) behind samples_per_sec; empty at 1 and in older profiles.
    std::vector<double> step_s_blocks;
    // What a whole run costs besides its warm steps (0: not measured, in older profiles).
    double startup_s = 0;          // process start to the first step: libtorch, data, rendezvous
    double warmup_s = 0;           // all the warm-up steps together, slower than warm ones
    double eval_s_per_sample = 0;  // evaluation (forward only, batches of 256) per test sample
    double eval_warmup_s = 0;      // the first evaluation's time over a warm one's
    int64_t checkpoint_bytes = 0;  // one checkpoint file: model and optimizer state
    double checkpoint_s = 0;       // writing it, from rank 0, synced to disk
    // The gradient buckets (0 at world size 1): their capacity (--bucket-mb) and count; with
    // --bucket-mb auto, also what its all-reduce probe at start measured of the links.
    int64_t bucket_bytes = 0;
    int64_t buckets = 0;
    std::optional<double> link_latency_s;    // the fixed cost of one all-reduce
    std::optional<double> link_bytes_per_s;  // fp32 bytes per second of one all-reduce
};

}  // namespace kftrain::wire
