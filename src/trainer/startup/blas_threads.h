#pragma once

#include <optional>
#include <string>

namespace kftrain::trainer {

// How the OpenBLAS that libtorch loaded runs in parallel: openblas_get_parallel()'s answer.
enum class BlasThreading { sequential = 0, pthreads = 1, openmp = 2, unknown = -1 };

// Convert openblas_get_parallel()'s value (or nullopt when the BLAS is not OpenBLAS).
BlasThreading blas_threading(std::optional<int> openblas_parallel);

// Return the warning to print when OpenBLAS runs its own pthreads beside torch's OpenMP
// threads with more than one intra-op thread: both pools spin while idle and take the cores
// from each other (measured 3-4 times slower for mlp at 2 threads); nullopt otherwise.
std::optional<std::string> blas_threading_warning(BlasThreading threading, int threads);

}  // namespace kftrain::trainer
