#include "trainer/comm/gradient_reducer.h"

#include <torch/csrc/autograd/function.h>
#include <torch/csrc/autograd/function_hook.h>
#include <torch/csrc/autograd/variable.h>

#include <mutex>
#include <utility>

#include "trainer/comm/buckets.h"

namespace kftrain::trainer::comm {

namespace {

// Return whether two tensors of one shape lie in memory in the same order (a dimension of
// size 1 may have any stride).
bool same_memory_order(const torch::Tensor& a, const torch::Tensor& b) {
    if (a.sizes() != b.sizes()) {
        return false;
    }
    for (int64_t d = 0; d < a.dim(); ++d) {
        if (a.size(d) > 1 && a.stride(d) != b.stride(d)) {
            return false;
        }
    }
    return true;
}

// Return a dense tensor's elements in the order they lie in memory, as one dimension.
torch::Tensor in_memory_order(const torch::Tensor& dense) {
    return dense.as_strided({dense.numel()}, {1});
}

// Return a flat slice of a bucket shaped and laid out like a parameter: with its strides if
// it is dense (as channels-last weights are), else contiguous.
torch::Tensor laid_out_like(const torch::Tensor& slice, const torch::Tensor& param) {
    return param.is_non_overlapping_and_dense() ? slice.as_strided(param.sizes(), param.strides())
                                                : slice.view(param.sizes());
}

}  // namespace

struct GradientReducer::State {
    struct Bucket {
        std::vector<std::size_t> params;
        torch::Tensor flat;
        // flat cast to the compression's type (undefined without compression).
        torch::Tensor wire;
        std::size_t pending = 0;
        std::unique_ptr<Comm::Pending> work;
    };
    Comm* comm = nullptr;
    std::vector<torch::Tensor> params;
    // views[i] is parameter i's slot in its bucket's flat, shaped like the parameter: flat is
    // allocated once and only changed in place, so the views stay valid.
    std::vector<torch::Tensor> views;
    // grads[i] is parameter i's gradient once backward has accumulated it, the part its
    // bucket's all-reduce reads (plain buckets only: compressed ones copy into flat).
    std::vector<torch::Tensor> grads;
    std::vector<Bucket> buckets;
    std::vector<std::size_t> bucket_of;
    std::vector<bool> seen;
    std::vector<std::shared_ptr<torch::autograd::Node>> accumulators;
    std::size_t next_launch = 0;
    std::size_t hook_launches = 0;
    bool* enabled = nullptr;
    GradCompression compression;
    std::mutex mutex;

    bool compressed() const { return compression.type != torch::kFloat32; }
    // Return what goes into the all-reduce for a compressed bucket whose gradients are all in
    // flat.
    torch::Tensor& outgoing(Bucket& b) {
        b.wire.copy_(b.flat);
        b.wire.div_(static_cast<double>(comm->world()));
        if (compression.carried) {
            return b.wire;
        }
        b.flat.copy_(b.wire);
        return b.flat;
    }
    // Return what the all-reduce computes: the mean of plain buckets (divided in the sum's own
    // pass through shared memory), the sum of compressed ones, divided before they were cast.
    ReduceOp reduce_op() const { return compressed() ? ReduceOp::sum : ReduceOp::mean; }
    // Turn a bucket's finished all-reduce into the mean in flat (fp32).
    void average(Bucket& b) {
        if (!compressed()) {
            return;  // the all-reduce left the mean
        }
        if (!compression.carried) {
            b.wire.copy_(b.flat);  // round the fp32 sum as a sum in the half type would be
        }
        b.flat.copy_(b.wire);
    }

    // Take parameter i's gradient for its bucket: hold it for the all-reduce to read where
    // it lies, or copy it into its view (compressed buckets, and a gradient laid out unlike
    // its parameter). None counts as zero.
    void take(std::size_t i) {
        const auto& grad = params[i].grad();
        if (!grad.defined()) {
            views[i].zero_();
        } else if (!compressed() && same_memory_order(grad, views[i])) {
            grads[i] = grad;
            return;
        } else if (grad.data_ptr() != views[i].data_ptr()) {
            views[i].copy_(grad);
        }  // else backward added to the view finish() left as the gradient
        grads[i] = views[i];
    }
    // Start a bucket's all-reduce, leaving the mean (or the compressed sum) in flat or wire;
    // synchronously for the last (no hand-over to another thread).
    std::unique_ptr<Comm::Pending> start(Bucket& b, bool here) {
        std::vector<torch::Tensor> parts;
        torch::Tensor out;
        if (compressed()) {
            out = outgoing(b);
            parts.push_back(out);
        } else {
            out = b.flat;
            for (std::size_t i : b.params) {
                parts.push_back(in_memory_order(grads[i]));
            }
        }
        if (here) {
            comm->allreduce(parts, out, reduce_op());
            return nullptr;
        }
        return comm->allreduce_async(parts, out, reduce_op());
    }
    // Start the all-reduce of every bucket whose gradients are all in, in order, but the
    // last: backward ends when its gradients are in, so finish() sums it on its own thread.
    void launch_ready() {
        while (next_launch + 1 < buckets.size() && buckets[next_launch].pending == 0) {
            auto& b = buckets[next_launch++];
            b.work = start(b, false);
        }
    }
    void on_grad_ready(std::size_t i) {
        std::lock_guard<std::mutex> lock(mutex);
        if (!*enabled || seen[i]) {
            return;
        }
        seen[i] = true;
        take(i);
        buckets[bucket_of[i]].pending -= 1;
        const std::size_t before = next_launch;
        launch_ready();
        hook_launches += next_launch - before;
    }
};

namespace {

// Call the reducer when a parameter's gradient has been accumulated.
class GradReadyHook : public torch::autograd::FunctionPostHook {
  public:
    GradReadyHook(GradientReducer::State* state, std::size_t index)
        : m_state(state), m_index(index) {}
    torch::autograd::variable_list operator()(const torch::autograd::variable_list& outputs,
                                              const torch::autograd::variable_list&) override {
        m_state->on_grad_ready(m_index);
        return outputs;
    }

  private:
    GradientReducer::State* m_state;
    std::size_t m_index;
};

}  // namespace

GradientReducer::GradientReducer(Comm& comm, std::vector<torch::Tensor> params,
                                 std::size_t first_cap, std::size_t cap,
                                 GradCompression compression)
    : m_state(std::make_unique<State>()) {
    auto& s = *m_state;
    s.comm = &comm;
    s.compression = compression;
    s.enabled = &m_enabled;
    s.params = std::move(params);
    std::vector<std::size_t> bytes;
    for (const auto& p : s.params) {
        bytes.push_back(static_cast<std::size_t>(p.numel() * p.element_size()));
    }
    s.bucket_of.resize(s.params.size());
    s.views.resize(s.params.size());
    s.grads.resize(s.params.size());
    for (auto& indices : assign_buckets(bytes, first_cap, cap)) {
        State::Bucket b;
        int64_t total = 0;
        for (std::size_t i : indices) {
            s.bucket_of[i] = s.buckets.size();
            total += s.params[i].numel();
        }
        b.params = std::move(indices);
        b.flat = torch::zeros({total}, s.params[b.params[0]].options());
        if (s.compressed()) {
            b.wire = torch::zeros({total}, b.flat.options().dtype(compression.type));
        }
        int64_t offset = 0;
        for (std::size_t i : b.params) {
            const auto& p = s.params[i];
            // Laid out like the parameter (channels-last weights too), as backward lays out
            // its gradient, so that the all-reduce reads the gradient where it lies. detach():
            // a plain tensor on the bucket's memory, not an autograd view, so that
            // zero_grad() (which detaches gradients in place) still works on it as a gradient.
            s.views[i] = laid_out_like(b.flat.narrow(0, offset, p.numel()), p).detach();
            offset += p.numel();
        }
        s.buckets.push_back(std::move(b));
    }
    for (std::size_t i = 0; i < s.params.size(); ++i) {
        auto acc = torch::autograd::impl::grad_accumulator(s.params[i]);
        acc->add_post_hook(std::make_unique<GradReadyHook>(&s, i));
        s.accumulators.push_back(std::move(acc));
    }
    prepare();
}

GradientReducer::~GradientReducer() = default;

void GradientReducer::prepare() {
    auto& s = *m_state;
    std::lock_guard<std::mutex> lock(s.mutex);
    s.seen.assign(s.params.size(), false);
    for (auto& b : s.buckets) {
        b.pending = b.params.size();
        b.work.reset();
    }
    s.next_launch = 0;
    s.hook_launches = 0;
}

void GradientReducer::finish() {
    auto& s = *m_state;
    {
        std::lock_guard<std::mutex> lock(s.mutex);
        for (std::size_t i = 0; i < s.params.size(); ++i) {
            if (!s.seen[i]) {
                s.seen[i] = true;
                s.take(i);
                s.buckets[s.bucket_of[i]].pending -= 1;
            }
        }
        s.launch_ready();
        if (!s.buckets.empty()) {
            s.start(s.buckets.back(), true);
            s.next_launch = s.buckets.size();
        }
    }
    for (auto& b : s.buckets) {
        if (b.work) {
            b.work->wait();
            b.work.reset();
        }
        s.average(b);
        for (std::size_t i : b.params) {
            s.params[i].mutable_grad() = s.views[i];  // the average, not copied again
            s.grads[i] = torch::Tensor();  // backward's gradient, read: its memory is free
        }
    }
}

void GradientReducer::allreduce_all() {
    const bool was = m_enabled;
    m_enabled = false;
    prepare();
    m_enabled = was;
    finish();
}

std::size_t GradientReducer::bucket_count() const {
    return m_state->buckets.size();
}

std::size_t GradientReducer::hook_launches() const {
    return m_state->hook_launches;
}

int64_t GradientReducer::wire_bytes() const {
    int64_t bytes = 0;
    for (const auto& b : m_state->buckets) {
        const auto& sent = m_state->compressed() && m_state->compression.carried ? b.wire : b.flat;
        bytes += sent.numel() * static_cast<int64_t>(sent.element_size());
    }
    return bytes;
}

}  // namespace kftrain::trainer::comm
