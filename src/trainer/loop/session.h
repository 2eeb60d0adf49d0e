#pragma once

#include <torch/torch.h>

#include <chrono>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "trainer/comm/buckets.h"
#include "trainer/comm/comm.h"
#include "trainer/comm/gradient_reducer.h"
#include "trainer/loop/lr_schedule.h"
#include "trainer/loop/progress.h"
#include "trainer/models.h"
#include "trainer/startup/env.h"
#include "trainer/startup/options.h"

namespace kftrain::trainer {

class StepMetrics;

// Seconds training steps spent in each phase, added up over the steps timed.
struct StepPhases {
    double forward = 0;    // the batch's assembly included
    double backward = 0;   // the gradients' all-reduce included
    double optimizer = 0;  // the step's metrics included
    double total() const { return forward + backward + optimizer; }
};

// Hold one data split as tensors: uint8 images [N, C, H, W], int64 labels [N].
struct TensorSet {
    torch::Tensor images;
    torch::Tensor labels;
    int64_t size() const { return labels.size(0); }
};

// Hold everything a rank trains with: data, model, optimizer, process group, reducer.
struct Session {
    TrainOptions options;
    DistEnv env;
    int threads = 1;
    // Where the model, its gradients and each batch live (--device); the data sets stay on
    // the host and each batch is copied over.
    torch::Device device = torch::kCPU;
    ProgressLog* log = nullptr;
    TensorSet train;
    TensorSet test;
    torch::Tensor mean;
    torch::Tensor stddev;
    std::shared_ptr<Net> model;
    std::unique_ptr<torch::optim::Optimizer> optimizer;
    std::unique_ptr<comm::Comm> comm;
    std::unique_ptr<comm::GradientReducer> reducer;
    // The gradient buckets' capacity (0 at world size 1), and what --bucket-mb auto's probe
    // measured of the links (unset when --bucket-mb gave the size).
    std::size_t bucket_bytes = 0;
    std::optional<comm::LinkCost> link;
    LrSchedule schedule;
    int64_t shard_size = 0;
    int64_t steps_per_epoch = 0;

    int rank() const { return env.rank; }
    int world() const { return env.world_size; }
    // Read the clock once the kernels queued on the session's CUDA device are done, so that a
    // time measures the work and not only its launch (CUDA runs asynchronously; the CPU does
    // not).
    std::chrono::steady_clock::time_point synced_now() const;
    // Return the seconds from t to synced_now().
    double seconds_since(std::chrono::steady_clock::time_point t) const;
    // Return normalised float images and labels for the given sample indices, on the device.
    std::pair<torch::Tensor, torch::Tensor> batch(const TensorSet& set,
                                                  const std::vector<int64_t>& indices) const;
    // Return this rank's training indices for an epoch (DistributedSampler semantics).
    std::vector<int64_t> epoch_indices(int64_t epoch) const;
    // Set the optimizer's learning rate.
    void set_lr(double lr);
    // Run one training step on these training samples at learning rate lr: gradients
    // dropped, forward, backward with the gradients' all-reduce (while the reducer is
    // enabled), the optimizer's step, and the loss and accuracy handed to metrics unread.
    // With phases, also add each phase's seconds to it (reading the clock once the device is
    // done). Training and --benchmark both run their steps here, so that a profile times the
    // step that training runs. Return the batch.
    std::pair<torch::Tensor, torch::Tensor> train_step(const std::vector<int64_t>& indices,
                                                       double lr, StepMetrics& metrics,
                                                       StepPhases* phases = nullptr);
    // Drop every parameter's gradient before a step (what zero_grad(set_to_none) does in
    // PyTorch 2): backward then hands each parameter its new gradient instead of adding it to
    // a zeroed one, and the gradient reducer can give back its buffers' views, uncopied.
    void drop_grads();

    // Evaluate the model on these test samples (eval mode, no gradients, batches of 256) and
    // return their summed loss and how many it got right, read from the device once.
    std::pair<double, double> eval_sums(const std::vector<int64_t>& indices);
    // Return what is wrong with the model's state ("" when nothing): a parameter that is not
    // finite, or a non-finite loss on the last batch, in evaluation mode (the next step's loss,
    // which the divergence guard has not seen yet). Checked before every checkpoint, and timed
    // with it by --benchmark.
    std::string unhealthy_state(const std::pair<torch::Tensor, torch::Tensor>& last_batch);
    // Sum values over ranks (identity with one rank).
    std::vector<double> sum_over_ranks(const std::vector<double>& values);
};

}  // namespace kftrain::trainer
