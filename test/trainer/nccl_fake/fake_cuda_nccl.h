#pragma once

// A stand-in for libcudart and libnccl, linked instead of them into a test of
// src/trainer/nccl_group.cpp so that its control flow (staging, polling, deadlines, abort)
// runs on a machine without a GPU. One rank whose "peers" hold the same values: an
// all-reduce doubles every float, a broadcast fills with k_root_value.

#include <nccl.h>

namespace fake_gpu {

constexpr float k_root_value = 7.0f;

// Hold what the fake does and what it saw; reset() before each test.
struct State {
    int devices = 1;
    int device_error = 0;  // a cudaError_t returned by cudaGetDeviceCount when non-zero
    int init_polls = 2;    // ncclCommGetAsyncError answers ncclInProgress this often after init
    bool hang = false;     // events never complete (a peer that never answers)
    ncclResult_t async_error = ncclSuccess;  // reported by ncclCommGetAsyncError when set
    int aborts = 0;
    int destroys = 0;
    int comms_alive = 0;
    int device_used = -1;
    long pinned_live = 0;  // pinned host buffers allocated and not freed
};

State& state();
void reset();

}  // namespace fake_gpu
