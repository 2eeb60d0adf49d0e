#pragma once

#include <chrono>
#include <string>

// Rank 0's store port: whether rank 0 can listen on it, and the other ranks' wait until it
// does.
namespace kftrain::trainer::comm {

// Return why rank 0's store cannot listen on port ("" when it can): bind a socket to it on
// every address, as the store does (IPv6 and IPv4, address reuse on), and close it again.
// Rank 0 asks before it starts the store, whose own failure names no port variable and
// comes after three lines of libtorch's log.
std::string listen_error(int port);

// Wait until something accepts TCP connections on host:port, trying every few milliseconds,
// or until the deadline; return whether it did. Ranks other than 0 call it before they
// connect to rank 0's store: libtorch's store client sleeps a whole second after a refused
// connection, which a rank that starts before rank 0 listens would otherwise always pay.
// Names that do not resolve yet (a Kubernetes service before its pod is up) count as not
// listening.
bool wait_until_listening(const std::string& host, int port,
                          std::chrono::steady_clock::time_point deadline);

}  // namespace kftrain::trainer::comm
