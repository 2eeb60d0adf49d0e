#include "fake_cuda_nccl.h"

#include <cuda_runtime_api.h>

#include <cstdlib>
#include <cstring>

namespace fake_gpu {

State& state() {
    static State s;
    return s;
}

void reset() {
    state() = State{};
}

}  // namespace fake_gpu

using fake_gpu::state;

struct ncclComm {
    int rank = 0;
    int pending_polls = 0;
};

extern "C" {

cudaError_t cudaGetDeviceCount(int* count) {
    *count = state().device_error != 0 ? 0 : state().devices;
    return static_cast<cudaError_t>(state().device_error);
}
const char* cudaGetErrorString(cudaError_t error) {
    return error == cudaErrorNoDevice ? "no CUDA-capable device is detected" : "fake CUDA error";
}
cudaError_t cudaSetDevice(int device) {
    state().device_used = device;
    return cudaSuccess;
}
cudaError_t cudaStreamCreateWithFlags(cudaStream_t* stream, unsigned int) {
    *stream = reinterpret_cast<cudaStream_t>(new int(0));
    return cudaSuccess;
}
cudaError_t cudaStreamDestroy(cudaStream_t stream) {
    delete reinterpret_cast<int*>(stream);
    return cudaSuccess;
}
cudaError_t cudaMallocHost(void** ptr, size_t size) {
    *ptr = std::malloc(size);
    state().pinned_live += 1;
    return cudaSuccess;
}
cudaError_t cudaFreeHost(void* ptr) {
    std::free(ptr);
    state().pinned_live -= 1;
    return cudaSuccess;
}
cudaError_t cudaMalloc(void** ptr, size_t size) {
    *ptr = std::malloc(size);
    return cudaSuccess;
}
cudaError_t cudaFree(void* ptr) {
    std::free(ptr);
    return cudaSuccess;
}
cudaError_t cudaMemcpyAsync(void* dst, const void* src, size_t count, cudaMemcpyKind,
                            cudaStream_t) {
    std::memcpy(dst, src, count);
    return cudaSuccess;
}
cudaError_t cudaEventCreateWithFlags(cudaEvent_t* event, unsigned int) {
    *event = reinterpret_cast<cudaEvent_t>(new int(0));
    return cudaSuccess;
}
cudaError_t cudaEventRecord(cudaEvent_t, cudaStream_t) {
    return cudaSuccess;
}
cudaError_t cudaEventQuery(cudaEvent_t) {
    return state().hang ? cudaErrorNotReady : cudaSuccess;
}
cudaError_t cudaEventDestroy(cudaEvent_t event) {
    delete reinterpret_cast<int*>(event);
    return cudaSuccess;
}
cudaError_t cudaStreamWaitEvent(cudaStream_t, cudaEvent_t, unsigned int) {
    return cudaSuccess;
}

const char* ncclGetErrorString(ncclResult_t result) {
    return result == ncclRemoteError ? "remote process exited or there was a network error"
                                     : "fake NCCL error";
}
const char* ncclGetLastError(ncclComm_t) {
    return "";
}
ncclResult_t ncclGetUniqueId(ncclUniqueId* id) {
    std::memset(id->internal, 'k', sizeof id->internal);
    return ncclSuccess;
}
ncclResult_t ncclCommInitRankConfig(ncclComm_t* comm, int, ncclUniqueId, int rank, ncclConfig_t*) {
    *comm = new ncclComm{rank, state().init_polls};
    state().comms_alive += 1;
    return ncclInProgress;
}
ncclResult_t ncclCommGetAsyncError(ncclComm_t comm, ncclResult_t* error) {
    if (state().async_error != ncclSuccess) {
        *error = state().async_error;
    } else if (comm->pending_polls > 0 || state().init_polls < 0) {
        comm->pending_polls -= 1;
        *error = ncclInProgress;
    } else {
        *error = ncclSuccess;
    }
    return ncclSuccess;
}
ncclResult_t ncclCommAbort(ncclComm_t comm) {
    state().aborts += 1;
    state().comms_alive -= 1;
    delete comm;
    return ncclSuccess;
}
ncclResult_t ncclCommFinalize(ncclComm_t) {
    return ncclSuccess;
}
ncclResult_t ncclCommDestroy(ncclComm_t comm) {
    state().destroys += 1;
    state().comms_alive -= 1;
    delete comm;
    return ncclSuccess;
}
ncclResult_t ncclAllReduce(const void* send, void* recv, size_t count, ncclDataType_t type,
                           ncclRedOp_t, ncclComm_t, cudaStream_t) {
    if (type == ncclFloat32) {
        for (size_t i = 0; i < count; ++i) {
            static_cast<float*>(recv)[i] = 2 * static_cast<const float*>(send)[i];
        }
    }
    return ncclSuccess;
}
ncclResult_t ncclBroadcast(const void*, void* recv, size_t count, ncclDataType_t type, int root,
                           ncclComm_t comm, cudaStream_t) {
    if (type == ncclFloat32 && comm->rank != root) {
        for (size_t i = 0; i < count; ++i) {
            static_cast<float*>(recv)[i] = fake_gpu::k_root_value;
        }
    }
    return ncclSuccess;
}

}  // extern "C"
