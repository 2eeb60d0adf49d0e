#pragma once

#include <chrono>
#include <string>

namespace kftrain::trainer::comm {

// Wait until something accepts TCP connections on host:port, trying every few milliseconds,
// or until the deadline; return whether it did. Ranks other than 0 call it before they
// connect to rank 0's store: libtorch's store client sleeps a whole second after a refused
// connection, which a rank that starts before rank 0 listens would otherwise always pay.
// Names that do not resolve yet (a Kubernetes service before its pod is up) count as not
// listening.
bool wait_until_listening(const std::string& host, int port,
                          std::chrono::steady_clock::time_point deadline);

}  // namespace kftrain::trainer::comm
