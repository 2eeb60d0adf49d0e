#pragma once

#include <optional>
#include <string>

#include "manifest/job_spec.h"

namespace kftrain::manifest {

// Read nprocPerNode as a count of processes per node: "4" is 4; nullopt when it is one of
// its words (auto, cpu, gpu), unset, or not a positive integer. A count past an int's range
// reads as the largest int, so validation can name it as too large.
std::optional<int> nproc_count(const std::string& nproc);

// Return whether nprocPerNode is unset or one of its words: auto, cpu, gpu.
bool nproc_is_word(const std::string& nproc);

// Return PET_NPROC_PER_NODE as Trainer v2's torch plugin resolves it: nprocPerNode when it
// is a number, else (auto) the GPUs per node, else the whole CPUs of resources, else 1.
int trainjob_procs_per_node(const JobSpec& spec);

// Return how many processes kftrain-trainer runs in each pod of the job: a TrainJob's
// trainjob_procs_per_node; for a PyTorchJob nprocPerNode when it is a number, the GPUs for
// gpu, and one for auto and cpu (where the trainer uses the pod's cores as threads).
int trainer_procs_per_pod(const JobSpec& spec);

}  // namespace kftrain::manifest
