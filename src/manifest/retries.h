#pragma once

#include <optional>

// A job's retry budget: how many times it is started again after a failure before it fails for
// good. One number for users (--retries N) over the two places the operators keep it.
//
// The Training Operator (v1 kinds) fails a job the moment its replicas' restarts reach
// runPolicy.backoffLimit (core PastBackoffLimit: restarts >= backoffLimit, or any restart when
// it is 0), so the attempt that restart begins is never run to its end: backoffLimit N lets
// N - 1 retries finish, and 0 and 1 both let none. JobSet (a TrainJob's runtime) restarts the
// whole job while its restarts are under failurePolicy.maxRestarts: maxRestarts N lets N.
namespace kftrain::manifest {

// The budget `kftrain run` and `kftrain init` give a job: 3 retries, enough for a passing fault
// (a node lost, a port taken, a pod preempted) to be retried, few enough that a program that can
// never start ends Failed within a minute or two (the kubelet's back-off: 10, 20, 40 s).
inline constexpr int k_default_retries = 3;

// The most retries a job file can ask for (backoffLimit is an int32).
inline constexpr int k_max_retries = 2147483646;

// Return the runPolicy.backoffLimit that lets retries retries run: 0 for 0, else retries + 1.
int backoff_limit_for_retries(int retries);

// Return the retries a runPolicy.backoffLimit lets run: 0 for 0 and 1, else limit - 1.
int retries_of_backoff_limit(int limit);

// Return the retries of a job file's runPolicy.backoffLimit; nullopt when it sets none (the
// operator's default: no limit for a v1 kind, the runtime's own failurePolicy for a TrainJob).
std::optional<int> job_retries(const std::optional<int>& backoff_limit);

}  // namespace kftrain::manifest
