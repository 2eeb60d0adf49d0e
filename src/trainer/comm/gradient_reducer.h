#pragma once

#include <torch/torch.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "trainer/comm/comm.h"

namespace kftrain::trainer::comm {

// Say how gradient buckets travel (--grad-compression): as they are (type kFloat32), or cast
// to kHalf or kBFloat16 and divided by the world size before the sum, as DDP's fp16/bf16
// compression hooks do. Where the backend does not carry the type (carried false), the
// values are rounded to it, summed in fp32 and the sum rounded again: the same precision,
// none of the bytes saved.
struct GradCompression {
    torch::ScalarType type = torch::kFloat32;
    bool carried = true;
};

// Average gradients over ranks in buckets, each bucket all-reduced as soon as all of its
// gradients are ready during backward (hooks on the parameters' gradient accumulators), the
// last one by finish(), buckets always launched in the same order on every rank.
class GradientReducer {
  public:
    GradientReducer(Comm& comm, std::vector<torch::Tensor> params, std::size_t first_cap,
                    std::size_t cap, GradCompression compression = {});
    ~GradientReducer();

    // Reset the buckets before a backward pass.
    void prepare();
    // Launch the buckets still waiting, wait for all and make each parameter's gradient the
    // view of its average in its bucket (no copy; the next step's backward must start from
    // dropped gradients, Session::drop_grads(), or zeroed ones).
    void finish();
    // Turn the all-reduce of training steps on or off (off: the hooks do nothing and
    // Session::train_step leaves gradients local, for measuring compute alone).
    void set_enabled(bool enabled) { m_enabled = enabled; }
    bool enabled() const { return m_enabled; }
    // All-reduce every bucket once without a backward pass (for measuring communication).
    void allreduce_all();
    // Return the number of buckets.
    std::size_t bucket_count() const;
    // Return how many buckets the last backward pass launched from its hooks (not finish()):
    // all but the last, which finish() sums without handing it to another thread.
    std::size_t hook_launches() const;
    // Return the bytes one rank's buckets put into the all-reduce each step.
    int64_t wire_bytes() const;

    struct State;

  private:
    std::unique_ptr<State> m_state;
    bool m_enabled = true;
};

}  // namespace kftrain::trainer::comm
