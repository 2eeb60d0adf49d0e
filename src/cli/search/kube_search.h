#pragma once

#include <memory>
#include <optional>
#include <string>

#include "cli/context.h"
#include "cli/cost/job_cost.h"
#include "cli/kube/kubectl.h"
#include "cli/search/search_backend.h"

namespace kftrain::cli::search {

// Make the cluster's search backend: Katib Experiments and Trials through kubectl with the
// global flags, in namespace ns ("" is the context's). Trials are priced with pricing, else
// with the catalog `kftrain status` uses by default (KFTRAIN_PRICES, else built-in). With
// give_up_at, no kubectl call runs past it (completion).
std::unique_ptr<SearchBackend> make_kube_search(
    const GlobalOptions& global, const std::string& ns,
    std::optional<cost::Pricing> pricing = std::nullopt,
    std::optional<kube::Clock::time_point> give_up_at = std::nullopt);

}  // namespace kftrain::cli::search
