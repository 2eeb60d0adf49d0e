#pragma once

#include "trainer/startup/blas_threads.h"

namespace kftrain::trainer {

// Run this thread's tensor operations on `threads` intra-op threads, with one inter-op thread
// and OpenBLAS's own pool at the same count; return how the loaded OpenBLAS runs in parallel.
// Call it from the thread that trains. Other threads' first ATen call leaves them one thread,
// and no thread pool that the trainer does not use is started (see compute_threads.cpp).
BlasThreading configure_threads(int threads);

}  // namespace kftrain::trainer
