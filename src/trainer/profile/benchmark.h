#pragma once

namespace kftrain::trainer {

struct Session;

// Measure compute, all-reduce and overlapped step times; rank 0 writes the profile.
int run_benchmark(Session& s);

}  // namespace kftrain::trainer
