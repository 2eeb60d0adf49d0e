#include "trainer/startup/blas_threads.h"

#include <fmt/format.h>

namespace kftrain::trainer {

BlasThreading blas_threading(std::optional<int> openblas_parallel) {
    if (!openblas_parallel) {
        return BlasThreading::unknown;
    }
    switch (*openblas_parallel) {
        case 0:
            return BlasThreading::sequential;
        case 1:
            return BlasThreading::pthreads;
        case 2:
            return BlasThreading::openmp;
        default:
            return BlasThreading::unknown;
    }
}

std::optional<std::string> blas_threading_warning(BlasThreading threading, int threads) {
    if (threading != BlasThreading::pthreads || threads <= 1) {
        return std::nullopt;
    }
    return fmt::format(
        "--threads {}: libtorch loaded the pthreads build of OpenBLAS, whose threads and "
        "torch's OpenMP threads take the cores from each other; install the OpenMP build "
        "(Debian: libopenblas0-openmp, chosen with update-alternatives; scripts/setup.sh "
        "does both) or run with --threads 1",
        threads);
}

}  // namespace kftrain::trainer
