#include "trainer/comm/nccl_tensors.h"

#include <fmt/format.h>

#include <map>
#include <memory>
#include <stdexcept>
#include <utility>
#include <vector>

namespace kftrain::trainer::comm {

NcclType nccl_type_of(const torch::Tensor& t) {
    switch (t.scalar_type()) {
        case torch::kFloat32:
            return NcclType::f32;
        case torch::kFloat64:
            return NcclType::f64;
        case torch::kFloat16:
            return NcclType::f16;
        case torch::kBFloat16:
            return NcclType::bf16;
        case torch::kInt32:
            return NcclType::i32;
        case torch::kInt64:
            return NcclType::i64;
        case torch::kUInt8:
            return NcclType::u8;
        default:
            throw std::runtime_error(
                fmt::format("NCCL cannot carry {} tensors", c10::toString(t.scalar_type())));
    }
}

std::unique_ptr<NcclGroup::Op> start_nccl(NcclGroup& group, torch::Tensor& t, bool allreduce) {
    const auto count = static_cast<std::size_t>(t.numel());
    auto started = allreduce
                       ? group.allreduce_sum(t.data_ptr(), count, nccl_type_of(t), t.is_cuda())
                       : group.broadcast(t.data_ptr(), count, nccl_type_of(t), t.is_cuda());
    if (!started.ok()) {
        throw std::runtime_error(started.error());
    }
    return std::move(*started);
}

void broadcast_nccl(NcclGroup& group, std::vector<torch::Tensor>& tensors) {
    torch::NoGradGuard no_grad;
    std::map<torch::ScalarType, std::vector<std::size_t>> by_type;
    for (std::size_t i = 0; i < tensors.size(); ++i) {
        if (tensors[i].numel() > 0) {
            by_type[tensors[i].scalar_type()].push_back(i);
        }
    }
    for (const auto& [type, indices] : by_type) {
        std::vector<torch::Tensor> parts;
        for (std::size_t i : indices) {
            parts.push_back(tensors[i].reshape({-1}));
        }
        auto flat = torch::cat(parts);
        if (auto done = start_nccl(group, flat, false)->wait(); !done.ok()) {
            throw std::runtime_error(done.error());
        }
        int64_t offset = 0;
        for (std::size_t i : indices) {
            auto& t = tensors[i];
            t.copy_(flat.narrow(0, offset, t.numel()).view(t.sizes()));
            offset += t.numel();
        }
    }
}

}  // namespace kftrain::trainer::comm
