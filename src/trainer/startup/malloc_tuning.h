#pragma once

#include <string_view>

namespace kftrain::trainer {

// Return whether GLIBC_TUNABLES (as given, may be null) already sets a glibc.malloc tunable,
// in which case the user's settings are left as they are.
bool malloc_tuned_by_user(const char* glibc_tunables);

// Keep large freed buffers in the heap for reuse instead of returning them to the kernel,
// unless GLIBC_TUNABLES sets malloc tunables; return whether glibc took the settings.
//
// glibc serves blocks above its mmap threshold (128 KiB at start) with a fresh mmap and
// unmaps them on free, so every step pays page faults to zero its activation and gradient
// buffers again until a free raises the threshold, and never does so for blocks over 32 MiB
// (resnet18 at batch 128). Call it first in main, before any thread starts.
bool keep_large_buffers();

}  // namespace kftrain::trainer
