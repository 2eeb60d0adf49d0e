// The only translation unit that includes c10d and Gloo headers: the Gloo process group, and
// the choice of the path each collective takes (Gloo, NCCL through nccl_tensors.h, or the
// shared-memory host group).
#include "trainer/comm/comm.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <future>
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>

#include "trainer/comm/host_group.h"
#include "trainer/comm/host_queue.h"
#include "trainer/comm/nccl_group.h"
#include "trainer/comm/nccl_tensors.h"
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
            return util::error(
                fmt::format("rank 0 cannot listen on MASTER_PORT {}: {}", env.master_port, why));
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
        return util::error(fmt::format("cannot connect to {}:{} as rank {} of {} within {}s: {}",
                                       env.master_addr, env.master_port, env.rank, env.world_size,
                                       timeout.count() / 1000, util::first_line(e.what())));
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
        return util::error("cannot share the NCCL id over Gloo: " + util::first_line(e.what()));
    }
    if (id.empty()) {
        return util::error(m_rank == 0 ? error
                                       : "rank 0 could not create an NCCL id (see its error)");
    }
    auto group = NcclGroup::connect(id, m_rank, m_world, local_rank, m_impl->timeout);
    if (!group.ok()) {
        return util::error(group.error());
    }
    m_impl->nccl = std::move(*group);
    return util::ok_status();
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
        return util::error(error);
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

}  // namespace kftrain::trainer::comm
