#include "trainer/startup/blas_threads.h"

#include <catch2/catch.hpp>

using namespace kftrain::trainer;

TEST_CASE("openblas_get_parallel's answer names how OpenBLAS runs", "[trainer][threads]") {
    CHECK(blas_threading(0) == BlasThreading::sequential);
    CHECK(blas_threading(1) == BlasThreading::pthreads);
    CHECK(blas_threading(2) == BlasThreading::openmp);
    CHECK(blas_threading(7) == BlasThreading::unknown);
    CHECK(blas_threading(std::nullopt) == BlasThreading::unknown);
}

TEST_CASE("the pthreads OpenBLAS beside 2+ torch threads gets a warning naming the remedy",
          "[trainer][threads]") {
    const auto warning = blas_threading_warning(BlasThreading::pthreads, 2);
    REQUIRE(warning);
    CHECK(warning->rfind("--threads 2: ", 0) == 0);
    CHECK(warning->find("libopenblas0-openmp") != std::string::npos);
    CHECK(warning->find("--threads 1") != std::string::npos);
    // One thread, or OpenBLAS on torch's own OpenMP threads, or sequential: nothing contends.
    CHECK_FALSE(blas_threading_warning(BlasThreading::pthreads, 1));
    CHECK_FALSE(blas_threading_warning(BlasThreading::openmp, 2));
    CHECK_FALSE(blas_threading_warning(BlasThreading::sequential, 8));
    CHECK_FALSE(blas_threading_warning(BlasThreading::unknown, 8));
}
