#pragma once

// The steps of make_plan() that plan_parts.cpp holds: plan.cpp, and program_model.cpp for
// what a program's estimate shares with it (the device and the price).

#include "estimate/plan_types.h"
#include "estimate/prices.h"
#include "util/result.h"

namespace kftrain::estimate {

// Pick the GPU type and count per replica: --gpu, or none for CPU replicas; an error names
// --gpu when the job asks for GPUs of no named type, or resources.gpus when a replica does
// not fit a node.
util::Status resolve_device(const JobFacts& job, const PlanFlags& flags, const PriceCatalog& prices,
                            Plan& plan);

// Fill the sizes to compare, the batch, processes, samples and epochs.
util::Status resolve_sizes(const JobFacts& job, const PlanFlags& flags, Plan& plan);

// Fill what a run costs besides its steps: warm-up, evaluation and checkpoints.
void resolve_run(const JobFacts& job, Plan& plan);

// Fill the links between processes: bandwidths, latency, replicas per node, start-up.
void resolve_links(const PlanFlags& flags, const PriceCatalog& prices, Plan& plan);

// Fill the price of one replica-hour when the catalog prices the device.
void resolve_price(const JobFacts& job, const PriceCatalog& prices, Plan& plan);

}  // namespace kftrain::estimate
