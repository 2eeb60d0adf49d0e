#include "trainer/startup/malloc_tuning.h"

#include <malloc.h>

#include <cstdlib>
#include <string_view>

namespace kftrain::trainer {
namespace {

// Above this a block still comes from a fresh mapping: far above any per-step buffer.
constexpr int k_mmap_threshold = 1 << 30;
// Free memory at the top of the heap is returned to the kernel only beyond this.
constexpr int k_trim_threshold = 1 << 30;

}  // namespace

bool malloc_tuned_by_user(const char* glibc_tunables) {
    return glibc_tunables != nullptr &&
           std::string_view(glibc_tunables).find("glibc.malloc.") != std::string_view::npos;
}

bool keep_large_buffers() {
    if (malloc_tuned_by_user(std::getenv("GLIBC_TUNABLES"))) {
        return false;
    }
    // Setting either turns glibc's dynamic thresholds off: both stay where they are set.
    return mallopt(M_MMAP_THRESHOLD, k_mmap_threshold) == 1 &&
           mallopt(M_TRIM_THRESHOLD, k_trim_threshold) == 1;
}

}  // namespace kftrain::trainer
