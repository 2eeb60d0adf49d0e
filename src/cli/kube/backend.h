#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <string>

#include "cli/context.h"
#include "cli/job/backend.h"

namespace kftrain::cli::kube {

// Make the kubernetes backend (kubectl with the global flags, in namespace ns); with
// give_up_at, no kubectl call runs past it.
std::unique_ptr<job::Backend> make_kubernetes_backend(
    const GlobalOptions& global, const std::string& ns,
    std::optional<std::chrono::steady_clock::time_point> give_up_at = std::nullopt);

}  // namespace kftrain::cli::kube
