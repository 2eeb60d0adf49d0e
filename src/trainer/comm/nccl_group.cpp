// The NCCL wrapper of a build with the CUDA toolkit's NCCL. The only translation unit that
// includes CUDA and NCCL headers; it includes no torch header (those compile slowly, and
// Debian's libtorch has no CUDA anyway).
#include "trainer/comm/nccl_group.h"

#include <cuda_runtime_api.h>
#include <fmt/format.h>
#include <nccl.h>

#include <cstring>
#include <mutex>
#include <thread>
#include <vector>

namespace kftrain::trainer::comm {
namespace {

using Clock = std::chrono::steady_clock;

std::string cuda_message(const char* call, cudaError_t code) {
    return fmt::format("{}: {}", call, cudaGetErrorString(code));
}

std::string nccl_message(const char* call, ncclResult_t code, ncclComm_t comm) {
    // The last error often says which peer or transport failed; the code alone does not.
    const char* last = ncclGetLastError(comm);
    const bool detail = last != nullptr && *last != '\0';
    return fmt::format("{}: {}{}{}", call, ncclGetErrorString(code), detail ? ": " : "",
                       detail ? last : "");
}

ncclDataType_t nccl_type(NcclType type) {
    switch (type) {
        case NcclType::f64:
            return ncclFloat64;
        case NcclType::f16:
            return ncclFloat16;
        case NcclType::bf16:
            return ncclBfloat16;
        case NcclType::i32:
            return ncclInt32;
        case NcclType::i64:
            return ncclInt64;
        case NcclType::u8:
            return ncclUint8;
        case NcclType::f32:
            break;
    }
    return ncclFloat32;
}

std::size_t type_bytes(NcclType type) {
    switch (type) {
        case NcclType::f64:
        case NcclType::i64:
            return 8;
        case NcclType::f16:
        case NcclType::bf16:
            return 2;
        case NcclType::u8:
            return 1;
        case NcclType::f32:
        case NcclType::i32:
            break;
    }
    return 4;
}

// Sleep a little longer each time, up to a cap: waits are short on a healthy job, and a busy
// loop would take a core from the data loading and the CPU-side copies.
void pause(std::chrono::microseconds& backoff) {
    std::this_thread::sleep_for(backoff);
    backoff = std::min(backoff * 2, std::chrono::microseconds(200));
}

// Pinned host memory and device memory of the same size: host tensors are copied into the
// pinned buffer so that no CUDA call blocks on the stream (a pageable copy would wait for
// every collective before it, and with it for a dead peer).
struct Staging {
    void* host = nullptr;
    void* device = nullptr;
    std::size_t bytes = 0;
    bool busy = false;
};

}  // namespace

struct NcclGroup::Impl {
    ncclComm_t comm = nullptr;
    cudaStream_t stream = nullptr;
    int device = 0;
    std::chrono::milliseconds timeout{0};
    bool broken = false;
    std::mutex mutex;
    std::vector<std::unique_ptr<Staging>> staging;

    // Stop the communicator after an error or a timeout so nothing waits on it any more.
    // ncclCommAbort frees it: comm must not be used afterwards.
    void abort() {
        if (comm != nullptr) {
            ncclCommAbort(comm);
            comm = nullptr;
        }
        broken = true;
    }
    util::Error aborted(const char* call) const {
        return util::error(
            fmt::format("{}: the NCCL communicator was aborted by an earlier error", call));
    }
    util::Error fail(std::string message) {
        abort();
        return util::error(std::move(message));
    }
    // Poll the communicator once: true while a non-blocking call is still in progress, an
    // error (and an aborted communicator) when NCCL reports one.
    util::Result<bool> in_progress(const char* call) {
        if (broken) {
            return aborted(call);
        }
        ncclResult_t state = ncclSuccess;
        const ncclResult_t got = ncclCommGetAsyncError(comm, &state);
        if (got != ncclSuccess) {
            return fail(nccl_message("ncclCommGetAsyncError", got, comm));
        }
        if (state != ncclSuccess && state != ncclInProgress) {
            return fail(nccl_message(call, state, comm));
        }
        return state == ncclInProgress;
    }
    util::Error timed_out(const char* call) {
        return fail(fmt::format("{}: not done within {}s (a peer failed, exited or hangs)", call,
                                timeout.count() / 1000));
    }
    // Wait until a non-blocking NCCL call has finished (left ncclInProgress), until deadline.
    util::Status settle(const char* call, Clock::time_point deadline) {
        auto backoff = std::chrono::microseconds(1);
        for (;;) {
            auto busy = in_progress(call);
            if (!busy.ok()) {
                return util::error(busy.error());
            }
            if (!*busy) {
                return util::ok_status();
            }
            if (Clock::now() >= deadline) {
                return timed_out(call);
            }
            pause(backoff);
        }
    }
    util::Result<Staging*> take_staging(std::size_t bytes);
    // Copy host memory into a staging buffer (stage) and on to the device on this stream.
    util::Status stage_in(void* data, std::size_t bytes, Staging*& stage);
    // Make this stream wait for what torch's stream queued (device tensors are used in place).
    util::Status wait_for_torch();
    util::Result<std::unique_ptr<Op>> launch(bool allreduce, void* data, std::size_t count,
                                             NcclType type, bool on_device);
};

namespace {

class NcclOp : public NcclGroup::Op {
  public:
    NcclOp(NcclGroup::Impl& group, cudaEvent_t done, Staging* staging, void* host,
           std::size_t bytes, const char* call)
        : m_group(group),
          m_done(done),
          m_staging(staging),
          m_host(host),
          m_bytes(bytes),
          m_call(call) {}
    ~NcclOp() override { cudaEventDestroy(m_done); }

    util::Status wait() override {
        auto& g = m_group;
        if (g.broken) {
            return g.aborted(m_call);  // its stream may never finish
        }
        const auto deadline = Clock::now() + g.timeout;
        auto backoff = std::chrono::microseconds(1);
        for (;;) {
            const cudaError_t state = cudaEventQuery(m_done);
            if (state == cudaSuccess) {
                break;
            }
            if (state != cudaErrorNotReady) {
                return g.fail(cuda_message("cudaEventQuery", state));
            }
            // Not done: an asynchronous error (a peer's connection broke) ends the wait early.
            if (auto healthy = g.in_progress(m_call); !healthy.ok()) {
                return util::error(healthy.error());
            }
            if (Clock::now() >= deadline) {
                return g.timed_out(m_call);
            }
            pause(backoff);
        }
        if (m_staging != nullptr) {
            std::memcpy(m_host, m_staging->host, m_bytes);
            std::lock_guard<std::mutex> lock(g.mutex);
            m_staging->busy = false;  // only now: the device may write it until the event
            m_staging = nullptr;
        }
        return util::ok_status();
    }

  private:
    NcclGroup::Impl& m_group;
    cudaEvent_t m_done;
    Staging* m_staging;
    void* m_host;
    std::size_t m_bytes;
    const char* m_call;
};

}  // namespace

util::Result<Staging*> NcclGroup::Impl::take_staging(std::size_t bytes) {
    std::lock_guard<std::mutex> lock(mutex);
    for (auto& s : staging) {
        if (!s->busy && s->bytes >= bytes) {
            s->busy = true;
            return s.get();
        }
    }
    auto s = std::make_unique<Staging>();
    if (auto e = cudaMallocHost(&s->host, bytes); e != cudaSuccess) {
        return util::error(cuda_message("cudaMallocHost", e));
    }
    if (auto e = cudaMalloc(&s->device, bytes); e != cudaSuccess) {
        cudaFreeHost(s->host);
        return util::error(cuda_message("cudaMalloc", e));
    }
    s->bytes = bytes;
    s->busy = true;
    staging.push_back(std::move(s));
    return staging.back().get();
}

util::Status NcclGroup::Impl::stage_in(void* data, std::size_t bytes, Staging*& stage) {
    auto taken = take_staging(bytes);
    if (!taken.ok()) {
        return fail(taken.error());
    }
    stage = *taken;
    std::memcpy(stage->host, data, bytes);
    const auto e =
        cudaMemcpyAsync(stage->device, stage->host, bytes, cudaMemcpyHostToDevice, stream);
    if (e != cudaSuccess) {
        return fail(cuda_message("cudaMemcpyAsync", e));
    }
    return util::ok_status();
}

util::Status NcclGroup::Impl::wait_for_torch() {
    // Device tensors were written on torch's stream (the legacy default one): wait for it.
    cudaEvent_t ready = nullptr;
    cudaError_t e = cudaEventCreateWithFlags(&ready, cudaEventDisableTiming);
    e = e == cudaSuccess ? cudaEventRecord(ready, cudaStreamLegacy) : e;
    e = e == cudaSuccess ? cudaStreamWaitEvent(stream, ready, 0) : e;
    cudaEventDestroy(ready);
    if (e != cudaSuccess) {
        return fail(cuda_message("cudaStreamWaitEvent", e));
    }
    return util::ok_status();
}

util::Result<std::unique_ptr<NcclGroup::Op>> NcclGroup::Impl::launch(bool allreduce, void* data,
                                                                     std::size_t count,
                                                                     NcclType type,
                                                                     bool on_device) {
    const char* call = allreduce ? "ncclAllReduce" : "ncclBroadcast";
    if (broken) {
        return aborted(call);
    }
    if (auto e = cudaSetDevice(device); e != cudaSuccess) {
        return fail(cuda_message("cudaSetDevice", e));
    }
    const std::size_t bytes = count * type_bytes(type);
    Staging* stage = nullptr;
    auto input = on_device ? wait_for_torch() : stage_in(data, bytes, stage);
    if (!input.ok()) {
        return util::error(input.error());
    }
    void* buffer = on_device ? data : stage->device;
    const ncclResult_t started =
        allreduce ? ncclAllReduce(buffer, buffer, count, nccl_type(type), ncclSum, comm, stream)
                  : ncclBroadcast(buffer, buffer, count, nccl_type(type), 0, comm, stream);
    if (started == ncclInProgress) {
        // Non-blocking communicator: the call finishes enqueueing in the background (the
        // first one also connects to the peers).
        if (auto ok = settle(call, Clock::now() + timeout); !ok.ok()) {
            return util::error(ok.error());
        }
    } else if (started != ncclSuccess) {
        return fail(nccl_message(call, started, comm));
    }
    if (stage != nullptr) {
        const auto e = cudaMemcpyAsync(stage->host, buffer, bytes, cudaMemcpyDeviceToHost, stream);
        if (e != cudaSuccess) {
            return fail(cuda_message("cudaMemcpyAsync", e));
        }
    }
    cudaEvent_t done = nullptr;
    if (auto e = cudaEventCreateWithFlags(&done, cudaEventDisableTiming); e != cudaSuccess) {
        return fail(cuda_message("cudaEventCreateWithFlags", e));
    }
    if (auto e = cudaEventRecord(done, stream); e != cudaSuccess) {
        cudaEventDestroy(done);
        return fail(cuda_message("cudaEventRecord", e));
    }
    return std::unique_ptr<Op>(std::make_unique<NcclOp>(*this, done, stage, data, bytes, call));
}

CudaFacts probe_cuda() {
    CudaFacts facts;
    facts.nccl_built = true;
    int count = 0;
    if (auto e = cudaGetDeviceCount(&count); e != cudaSuccess) {
        facts.error = cudaGetErrorString(e);
        return facts;
    }
    facts.devices = count;
    return facts;
}

util::Result<std::string> NcclGroup::make_id() {
    ncclUniqueId id;
    if (auto r = ncclGetUniqueId(&id); r != ncclSuccess) {
        return util::error(nccl_message("ncclGetUniqueId", r, nullptr));
    }
    return std::string(id.internal, sizeof id.internal);
}

util::Result<std::unique_ptr<NcclGroup>> NcclGroup::connect(const std::string& id, int rank,
                                                            int world, int local_rank,
                                                            std::chrono::milliseconds timeout) {
    ncclUniqueId uid;
    if (id.size() != sizeof uid.internal) {
        return util::error(fmt::format("NCCL id from rank 0 has {} bytes, expected {}", id.size(),
                                       sizeof uid.internal));
    }
    std::memcpy(uid.internal, id.data(), id.size());
    int devices = 0;
    if (auto e = cudaGetDeviceCount(&devices); e != cudaSuccess) {
        return util::error(cuda_message("cudaGetDeviceCount", e));
    }
    if (devices < 1) {
        return util::error("cudaGetDeviceCount: no CUDA device is visible");
    }
    auto impl = std::make_unique<Impl>();
    impl->device = local_rank % devices;
    impl->timeout = timeout;
    if (auto e = cudaSetDevice(impl->device); e != cudaSuccess) {
        return util::error(cuda_message("cudaSetDevice", e));
    }
    if (auto e = cudaStreamCreateWithFlags(&impl->stream, cudaStreamNonBlocking);
        e != cudaSuccess) {
        return util::error(cuda_message("cudaStreamCreateWithFlags", e));
    }
    std::unique_ptr<NcclGroup> group(new NcclGroup(std::move(impl)));
    auto& g = *group->m_impl;
    // Non-blocking: initialisation runs in the background and can be polled and aborted,
    // so a peer that never arrives costs --timeout, not forever.
    ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
    config.blocking = 0;
    const ncclResult_t started = ncclCommInitRankConfig(&g.comm, world, uid, rank, &config);
    const bool running = started == ncclSuccess || started == ncclInProgress;
    const auto joined =
        running ? g.settle("ncclCommInitRankConfig", Clock::now() + timeout)
                : util::Status(g.fail(nccl_message("ncclCommInitRankConfig", started, g.comm)));
    if (!joined.ok()) {
        return util::error(fmt::format("cannot start NCCL as rank {} of {} on CUDA device {}: {}",
                                       rank, world, g.device, joined.error()));
    }
    return group;
}

NcclGroup::NcclGroup(std::unique_ptr<Impl> impl) : m_impl(std::move(impl)) {}

NcclGroup::~NcclGroup() {
    auto& g = *m_impl;
    if (g.broken) {
        return;  // freeing memory would synchronise with a stream that may never finish
    }
    if (g.comm != nullptr) {
        // Every collective has been waited for: flush, then free the communicator locally.
        const ncclResult_t r = ncclCommFinalize(g.comm);
        const bool flushed = (r == ncclSuccess || r == ncclInProgress) &&
                             g.settle("ncclCommFinalize", Clock::now() + g.timeout).ok();
        if (!flushed) {
            g.abort();
            return;
        }
        ncclCommDestroy(g.comm);
    }
    for (auto& s : g.staging) {
        cudaFree(s->device);
        cudaFreeHost(s->host);
    }
    if (g.stream != nullptr) {
        cudaStreamDestroy(g.stream);
    }
}

util::Result<std::unique_ptr<NcclGroup::Op>> NcclGroup::allreduce_sum(void* data, std::size_t count,
                                                                      NcclType type,
                                                                      bool on_device) {
    return m_impl->launch(true, data, count, type, on_device);
}

util::Result<std::unique_ptr<NcclGroup::Op>> NcclGroup::broadcast(void* data, std::size_t count,
                                                                  NcclType type, bool on_device) {
    return m_impl->launch(false, data, count, type, on_device);
}

int NcclGroup::device() const {
    return m_impl->device;
}

}  // namespace kftrain::trainer::comm
