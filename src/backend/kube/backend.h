#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <string>

#include "job/backend.h"
#include "job/context.h"

namespace kftrain::backend::kube {

// Make the kubernetes backend (kubectl with the global flags, in namespace ns); with
// give_up_at, no kubectl call runs past it.
std::unique_ptr<job::Backend> make_kubernetes_backend(
    const job::BackendOptions& global, const std::string& ns,
    std::optional<std::chrono::steady_clock::time_point> give_up_at = std::nullopt);

}  // namespace kftrain::backend::kube
