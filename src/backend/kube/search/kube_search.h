#pragma once

#include <memory>
#include <optional>
#include <string>

#include "backend/kube/kubectl.h"
#include "cost/job_cost.h"
#include "job/context.h"
#include "job/search_backend.h"

namespace kftrain::backend::kube {

// Make the cluster's search backend: Katib Experiments and Trials through kubectl with the
// global flags, in namespace ns ("" is the context's). Trials are priced with pricing, else
// with the catalog `kftrain status` uses by default (KFTRAIN_PRICES, else built-in). With
// give_up_at, no kubectl call runs past it (completion).
std::unique_ptr<job::SearchBackend> make_kube_search(
    const job::BackendOptions& global, const std::string& ns,
    std::optional<cost::Pricing> pricing = std::nullopt,
    std::optional<backend::kube::Clock::time_point> give_up_at = std::nullopt);

}  // namespace kftrain::backend::kube
