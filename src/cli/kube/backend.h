#pragma once

#include <memory>
#include <string>

#include "cli/context.h"
#include "cli/job/backend.h"

namespace kftrain::cli::kube {

// Make the kubernetes backend (kubectl with the global flags, in namespace ns).
std::unique_ptr<job::Backend> make_kubernetes_backend(const GlobalOptions& global,
                                                      const std::string& ns);

}  // namespace kftrain::cli::kube
