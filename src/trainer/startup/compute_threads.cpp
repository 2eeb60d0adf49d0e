#include "trainer/startup/compute_threads.h"

#include <ATen/Config.h>
#include <ATen/Parallel.h>
#include <dlfcn.h>

#include <optional>

namespace kftrain::trainer {
namespace {

// Call the loaded library's void fn(int) named `name`, if any; return whether there was one.
bool call_if_loaded(const char* name, int value) {
    using SetCount = void (*)(int);
    auto fn = reinterpret_cast<SetCount>(dlsym(RTLD_DEFAULT, name));
    if (fn) {
        fn(value);
    }
    return fn != nullptr;
}

// Size the OpenMP team of this thread, which runs its ATen operations, oneDNN and OpenBLAS's
// OpenMP build, while ATen itself is told one thread. libtorch 1.13's at::set_num_threads(n)
// also re-creates caffe2's pthreadpool with n threads, and every thread's first ATen call
// repeats it (at::internal::lazy_init_num_threads). Each new pool's workers spin on a core for
// tens of milliseconds, though only QNNPACK, XNNPACK and NNPACK run on that pool and the trainer
// runs none of them: at --threads 2 on two cores they took a core from the first training
// steps (mlp, batch 256: first epoch 97k-122k samples/s, 133k-144k without them). Told one
// thread, ATen keeps a pool without workers, including for threads that start later.
// Return false where ATen does not run on OpenMP, or MKL would be left at one thread.
bool size_openmp_team_only(int threads) {
#if AT_PARALLEL_OPENMP && !AT_MKL_ENABLED()
    // This thread's one-time setup first, so that it cannot later reset the team size.
    (void)at::get_num_threads();
    at::set_num_threads(1);
    if (call_if_loaded("omp_set_num_threads", threads) && at::get_num_threads() == threads) {
        return true;
    }
#endif
    (void)threads;
    return false;
}

}  // namespace

BlasThreading configure_threads(int threads) {
    if (!size_openmp_team_only(threads)) {
        at::set_num_threads(threads);
    }
    try {
        at::set_num_interop_threads(1);
    } catch (const std::exception&) {
        // Already set: the inter-op pool starts once per process.
    }
    call_if_loaded("openblas_set_num_threads", threads);
    using GetParallel = int (*)();
    auto parallel = reinterpret_cast<GetParallel>(dlsym(RTLD_DEFAULT, "openblas_get_parallel"));
    return blas_threading(parallel ? std::optional<int>(parallel()) : std::nullopt);
}

}  // namespace kftrain::trainer
