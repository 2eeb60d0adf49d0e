#pragma once

// Torch tensors over NCCL: nccl_group.h takes raw memory and includes no torch header, so
// this file gives Comm the tensors' element types and the collectives it runs on them.

#include <torch/torch.h>

#include <memory>
#include <vector>

#include "trainer/comm/nccl_group.h"

namespace kftrain::trainer::comm {

// Return the NCCL type of a tensor's elements; throw std::runtime_error for one NCCL cannot
// carry.
NcclType nccl_type_of(const torch::Tensor& t);

// Start an all-reduce (sum) or a broadcast from rank 0 of a contiguous tensor over NCCL.
std::unique_ptr<NcclGroup::Op> start_nccl(NcclGroup& group, torch::Tensor& t, bool allreduce);

// Broadcast tensors over NCCL as one flat tensor per element type: one collective (and one
// staging buffer) instead of one per parameter.
void broadcast_nccl(NcclGroup& group, std::vector<torch::Tensor>& tensors);

}  // namespace kftrain::trainer::comm
