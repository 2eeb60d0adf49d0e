// The only translation unit that includes c10d and Gloo headers; it hands NCCL raw pointers
// through nccl_group.h, which includes neither torch nor CUDA.
#include "trainer/comm/comm.h"

#include <fmt/format.h>
#include <torch/csrc/autograd/function.h>
#include <torch/csrc/autograd/function_hook.h>
#include <torch/csrc/autograd/variable.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <future>
#include <map>
#include <mutex>
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>

#include "trainer/comm/buckets.h"
#include "trainer/comm/host_group.h"
#include "trainer/comm/host_queue.h"
#include "trainer/comm/nccl_group.h"
#include "trainer/comm/store_port.h"
#include "util/text.h"

namespace kftrain::trainer::comm {

namespace {

HostType host_type(const torch::Tensor& t) {
    return t.scalar_type() == torch::kFloat64 ? HostType::f64 : HostType::f32;
}

// Call visit(part, place) for each of parts laid end to end, place being its elements' place
// in flat (numel the sum of theirs).
template <typename Visit>
void each_place(const std::vector<torch::Tensor>& parts, torch::Tensor& flat, Visit visit) {
    int64_t offset = 0;
    for (const auto& part : parts) {
        visit(part, flat.narrow(0, offset, part.numel()));
        offset += part.numel();
    }
}

// Copy a part to its place in flat unless it lies there already.
void copy_to_place(const torch::Tensor& part, torch::Tensor place) {
    if (part.data_ptr() != place.data_ptr()) {
        torch::NoGradGuard no_grad;
        place.view(part.sizes()).copy_(part);
    }
}

// Return where the host group reads parts laid end to end that end up in flat: each part
// where it lies, but one it cannot read there (not contiguous, another type), which is copied
// to its place in flat first.
std::vector<HostPiece> host_pieces(const std::vector<torch::Tensor>& parts, torch::Tensor& flat) {
    std::vector<HostPiece> pieces;
    each_place(parts, flat, [&](const torch::Tensor& part, torch::Tensor place) {
        const bool readable =
            part.is_contiguous() && part.scalar_type() == flat.scalar_type() && !part.is_cuda();
        if (!readable) {
            copy_to_place(part, place);
        }
        const auto& from = readable ? part : place;
        pieces.push_back(HostPiece{from.data_ptr(), static_cast<std::size_t>(from.numel())});
    });
    return pieces;
}

// A sum queued on the host group; holds the tensors so that their memory outlives the sum.
class HostPending : public Comm::Pending {
  public:
    HostPending(HostQueue& queue, std::vector<torch::Tensor> parts, torch::Tensor flat, ReduceOp op)
        : m_parts(std::move(parts)),
          m_flat(std::move(flat)),
          m_done(
              queue.push(host_pieces(m_parts, m_flat), m_flat.data_ptr(), host_type(m_flat), op)) {}
    // Dropped unwaited (an error elsewhere): the sum still writes into the tensor, so let it
    // finish first; its outcome no longer matters.
    ~HostPending() override {
        if (m_done.valid()) {
            m_done.wait();
        }
    }
    HostPending(const HostPending&) = delete;
    HostPending& operator=(const HostPending&) = delete;
    void wait() override { m_done.get(); }  // the group's own deadline bounds it

  private:
    std::vector<torch::Tensor> m_parts;
    torch::Tensor m_flat;
    std::future<void> m_done;
};

bool host_carries(torch::ScalarType type) {
    return type == torch::kFloat32 || type == torch::kFloat64;
}

}  // namespace

struct Comm::Impl {
    c10::intrusive_ptr<c10d::TCPStore> store;
    c10::intrusive_ptr<c10d::ProcessGroupGloo> group;
    std::chrono::milliseconds timeout;
    std::unique_ptr<NcclGroup> nccl;  // set by use_nccl()
    std::unique_ptr<HostQueue> host;  // set by use_shared_memory()
};

namespace {

std::shared_ptr<::gloo::transport::Device> make_device(const DistEnv& env) {
    using c10d::ProcessGroupGloo;
    if (!env.socket_ifname.empty()) {
        return ProcessGroupGloo::createDeviceForInterface(env.socket_ifname);
    }
    if (is_loopback(env.master_addr)) {
        return ProcessGroupGloo::createDeviceForHostname("127.0.0.1");
    }
    char host[256] = {};
    if (::gethostname(host, sizeof host - 1) == 0) {
        try {
            return ProcessGroupGloo::createDeviceForHostname(host);
        } catch (const std::exception&) {
        }
    }
    return ProcessGroupGloo::createDefaultDevice();
}

class GlooPending : public Comm::Pending {
  public:
    GlooPending(c10::intrusive_ptr<c10d::Work> work, std::chrono::milliseconds timeout)
        : m_work(std::move(work)), m_timeout(timeout) {}
    void wait() override { m_work->wait(m_timeout); }

  private:
    c10::intrusive_ptr<c10d::Work> m_work;
    std::chrono::milliseconds m_timeout;
};

// An all-reduce whose sum is divided by the ranks once it is done (Gloo, NCCL).
class MeanPending : public Comm::Pending {
  public:
    MeanPending(std::unique_ptr<Comm::Pending> sum, torch::Tensor t, int world)
        : m_sum(std::move(sum)), m_tensor(std::move(t)), m_world(world) {}
    void wait() override {
        m_sum->wait();
        m_tensor.div_(m_world);
    }

  private:
    std::unique_ptr<Comm::Pending> m_sum;
    torch::Tensor m_tensor;
    int m_world;
};

class NcclPending : public Comm::Pending {
  public:
    explicit NcclPending(std::unique_ptr<NcclGroup::Op> op) : m_op(std::move(op)) {}
    void wait() override {
        if (auto done = m_op->wait(); !done.ok()) {
            throw std::runtime_error(done.error());
        }
    }

  private:
    std::unique_ptr<NcclGroup::Op> m_op;
};

NcclType nccl_type_of(const torch::Tensor& t) {
    switch (t.scalar_type()) {
        case torch::kFloat32:
            return NcclType::f32;
        case torch::kFloat64:
            return NcclType::f64;
        case torch::kFloat16:
            return NcclType::f16;
        case torch::kBFloat16:
            return NcclType::bf16;
        case torch::kInt32:
            return NcclType::i32;
        case torch::kInt64:
            return NcclType::i64;
        case torch::kUInt8:
            return NcclType::u8;
        default:
            throw std::runtime_error(
                fmt::format("NCCL cannot carry {} tensors", c10::toString(t.scalar_type())));
    }
}

// Start an all-reduce (sum) or a broadcast from rank 0 of a contiguous tensor over NCCL.
std::unique_ptr<NcclGroup::Op> start_nccl(NcclGroup& group, torch::Tensor& t, bool allreduce) {
    const auto count = static_cast<std::size_t>(t.numel());
    auto started = allreduce
                       ? group.allreduce_sum(t.data_ptr(), count, nccl_type_of(t), t.is_cuda())
                       : group.broadcast(t.data_ptr(), count, nccl_type_of(t), t.is_cuda());
    if (!started.ok()) {
        throw std::runtime_error(started.error());
    }
    return std::move(*started);
}

// Broadcast tensors over NCCL as one flat tensor per element type: one collective (and one
// staging buffer) instead of one per parameter.
void broadcast_nccl(NcclGroup& group, std::vector<torch::Tensor>& tensors) {
    torch::NoGradGuard no_grad;
    std::map<torch::ScalarType, std::vector<std::size_t>> by_type;
    for (std::size_t i = 0; i < tensors.size(); ++i) {
        if (tensors[i].numel() > 0) {
            by_type[tensors[i].scalar_type()].push_back(i);
        }
    }
    for (const auto& [type, indices] : by_type) {
        std::vector<torch::Tensor> parts;
        for (std::size_t i : indices) {
            parts.push_back(tensors[i].reshape({-1}));
        }
        auto flat = torch::cat(parts);
        if (auto done = start_nccl(group, flat, false)->wait(); !done.ok()) {
            throw std::runtime_error(done.error());
        }
        int64_t offset = 0;
        for (std::size_t i : indices) {
            auto& t = tensors[i];
            t.copy_(flat.narrow(0, offset, t.numel()).view(t.sizes()));
            offset += t.numel();
        }
    }
}

void gloo_broadcast(Comm::Impl& impl, std::vector<torch::Tensor>& tensors) {
    for (auto& t : tensors) {
        std::vector<at::Tensor> one{t};
        impl.group->broadcast(one)->wait(impl.timeout);
    }
}

// Start summing a tensor in place over Gloo.
std::unique_ptr<Comm::Pending> gloo_allreduce(Comm::Impl& impl, torch::Tensor& t) {
    std::vector<at::Tensor> one{t};
    c10d::AllreduceOptions opts;
    opts.reduceOp = c10d::ReduceOp::SUM;  // AVG crashes Gloo on 1.13: divide afterwards
    return std::make_unique<GlooPending>(impl.group->allreduce(one, opts), impl.timeout);
}

}  // namespace

Comm::Comm(std::unique_ptr<Impl> impl, int rank, int world)
    : m_impl(std::move(impl)), m_rank(rank), m_world(world) {}

Comm::~Comm() = default;

util::Result<std::unique_ptr<Comm>> Comm::connect(const DistEnv& env,
                                                  std::chrono::milliseconds timeout) {
    if (env.rank == 0) {
        if (const auto why = listen_error(env.master_port); !why.empty()) {
            return util::Error{
                fmt::format("rank 0 cannot listen on MASTER_PORT {}: {}", env.master_port, why)};
        }
    }
    auto impl = std::make_unique<Impl>();
    impl->timeout = timeout;
    try {
        if (env.rank != 0) {
            // Best effort: on a timeout the store below reports the failure.
            wait_until_listening(env.master_addr, env.master_port,
                                 std::chrono::steady_clock::now() + timeout);
        }
        c10d::TCPStoreOptions opts;
        opts.port = static_cast<std::uint16_t>(env.master_port);
        opts.isServer = env.rank == 0;
        opts.numWorkers = static_cast<std::size_t>(env.world_size);
        opts.waitWorkers = true;
        opts.timeout = timeout;
        impl->store = c10::make_intrusive<c10d::TCPStore>(env.master_addr, opts);
        auto options = c10d::ProcessGroupGloo::Options::create(timeout);
        options->devices.push_back(make_device(env));
        options->threads = 1;
        impl->group = c10::make_intrusive<c10d::ProcessGroupGloo>(impl->store, env.rank,
                                                                  env.world_size, options);
    } catch (const std::exception& e) {
        return util::Error{fmt::format("cannot connect to {}:{} as rank {} of {} within {}s: {}",
                                       env.master_addr, env.master_port, env.rank, env.world_size,
                                       timeout.count() / 1000, util::first_line(e.what()))};
    }
    return std::unique_ptr<Comm>(new Comm(std::move(impl), env.rank, env.world_size));
}

util::Status Comm::use_nccl(int local_rank) {
    std::string id, error;
    if (m_rank == 0) {
        auto made = NcclGroup::make_id();
        if (made.ok()) {
            id = *made;
        } else {
            error = made.error();
        }
    }
    try {
        // An empty id tells the others that rank 0 has none, so every rank stops now.
        id = broadcast_bytes(id);
    } catch (const std::exception& e) {
        return util::Error{"cannot share the NCCL id over Gloo: " + util::first_line(e.what())};
    }
    if (id.empty()) {
        return util::Error{m_rank == 0 ? error
                                       : "rank 0 could not create an NCCL id (see its error)"};
    }
    auto group = NcclGroup::connect(id, m_rank, m_world, local_rank, m_impl->timeout);
    if (!group.ok()) {
        return util::Error{group.error()};
    }
    m_impl->nccl = std::move(*group);
    return util::Unit{};
}

util::Result<bool> Comm::use_shared_memory() {
    std::unique_ptr<HostGroup> group;
    std::string name, error;
    if (m_rank == 0) {
        const std::size_t per_rank =
            k_host_segment_max_bytes / static_cast<std::size_t>(m_world + 1);
        auto created = HostGroup::create(m_world, std::min(k_host_slot_bytes, per_rank));
        if (created.ok()) {
            group = std::move(*created);
            name = group->name();
        } else {
            error = created.error();
        }
    }
    // An empty name tells the others that rank 0 has no segment.
    name = broadcast_bytes(name);
    if (m_rank != 0 && !name.empty()) {
        if (auto opened = HostGroup::open(name, m_rank, m_world); opened.ok()) {
            group = std::move(*opened);
        }
    }
    const double opened = allreduce_sum({group ? 1.0 : 0.0})[0];
    if (m_rank == 0 && group) {
        group->unlink();  // every rank that could open it has
    }
    if (!error.empty()) {
        return util::Error{error};
    }
    if (opened < m_world) {
        return false;
    }
    m_impl->host = std::make_unique<HostQueue>(std::move(group), m_impl->timeout);
    return true;
}

Backend Comm::backend() const {
    if (m_impl->nccl) {
        return Backend::nccl;
    }
    return m_impl->host ? Backend::shm : Backend::gloo;
}

void Comm::broadcast(std::vector<torch::Tensor>& tensors) {
    if (m_impl->nccl) {
        broadcast_nccl(*m_impl->nccl, tensors);
        return;
    }
    gloo_broadcast(*m_impl, tensors);
}

std::vector<double> Comm::allreduce_sum(const std::vector<double>& values) {
    auto t = torch::tensor(values, torch::kFloat64);
    std::vector<at::Tensor> one{t};
    m_impl->group->allreduce(one)->wait(m_impl->timeout);
    return std::vector<double>(t.data_ptr<double>(), t.data_ptr<double>() + t.numel());
}

namespace {

void check_host_carries(const torch::Tensor& flat) {
    if (!host_carries(flat.scalar_type()) || !flat.is_contiguous() || flat.is_cuda()) {
        throw std::runtime_error(fmt::format("shared memory cannot carry {} tensors",
                                             c10::toString(flat.scalar_type())));
    }
}

}  // namespace

std::unique_ptr<Comm::Pending> Comm::allreduce_async(torch::Tensor& flat, ReduceOp op) {
    return allreduce_async({flat}, flat, op);
}

std::unique_ptr<Comm::Pending> Comm::allreduce_async(const std::vector<torch::Tensor>& parts,
                                                     torch::Tensor& flat, ReduceOp op) {
    if (m_impl->host && !m_impl->nccl) {
        check_host_carries(flat);
        return std::make_unique<HostPending>(*m_impl->host, parts, flat, op);
    }
    each_place(parts, flat, copy_to_place);
    std::unique_ptr<Pending> sum =
        m_impl->nccl ? std::make_unique<NcclPending>(start_nccl(*m_impl->nccl, flat, true))
                     : gloo_allreduce(*m_impl, flat);
    if (op == ReduceOp::mean) {
        return std::make_unique<MeanPending>(std::move(sum), flat, m_world);
    }
    return sum;
}

void Comm::allreduce(torch::Tensor& flat, ReduceOp op) {
    allreduce({flat}, flat, op);
}

void Comm::allreduce(const std::vector<torch::Tensor>& parts, torch::Tensor& flat, ReduceOp op) {
    if (m_impl->host && !m_impl->nccl) {
        check_host_carries(flat);
        m_impl->host->allreduce_here(host_pieces(parts, flat), flat.data_ptr(), host_type(flat),
                                     op);
        return;
    }
    allreduce_async(parts, flat, op)->wait();
}

std::unique_ptr<Comm::Pending> Comm::allreduce_host_async(torch::Tensor& host) {
    if (m_impl->host && host_carries(host.scalar_type())) {
        return std::make_unique<HostPending>(*m_impl->host, std::vector<torch::Tensor>{host}, host,
                                             ReduceOp::sum);
    }
    return gloo_allreduce(*m_impl, host);
}

bool Comm::carries(torch::ScalarType type) {
    if (m_impl->host) {
        return host_carries(type);
    }
    auto probe = torch::zeros({1}, type);
    if (m_impl->nccl) {
        try {
            nccl_type_of(probe);
            return true;
        } catch (const std::exception&) {
            return false;
        }
    }
    try {
        // Gloo's worker refuses a type it has no kernel for before it sends anything, on
        // every rank alike; the error comes out of wait().
        gloo_allreduce(*m_impl, probe)->wait();
    } catch (const std::exception& e) {
        if (std::string(e.what()).find("Invalid scalar type") != std::string::npos) {
            return false;
        }
        throw;
    }
    return true;
}

void Comm::barrier() {
    m_impl->group->barrier()->wait(m_impl->timeout);
}

std::string Comm::broadcast_bytes(const std::string& bytes) {
    std::vector<torch::Tensor> size{torch::tensor({static_cast<int64_t>(bytes.size())})};
    gloo_broadcast(*m_impl, size);
    const int64_t n = size[0].item<int64_t>();
    std::vector<torch::Tensor> data{torch::zeros({n}, torch::kUInt8)};
    if (m_rank == 0) {
        std::memcpy(data[0].data_ptr<uint8_t>(), bytes.data(), bytes.size());
    }
    gloo_broadcast(*m_impl, data);
    return std::string(reinterpret_cast<const char*>(data[0].data_ptr<uint8_t>()),
                       static_cast<std::size_t>(n));
}

// ---- GradientReducer ----

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
