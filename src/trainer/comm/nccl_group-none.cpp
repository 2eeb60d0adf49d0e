// The NCCL wrapper of a build without the CUDA toolkit's NCCL: no devices, every call an
// error. choose_backend() refuses --backend nccl first, so these errors are a safety net.
#include "trainer/comm/nccl_group.h"

namespace kftrain::trainer::comm {
namespace {

const char* const k_not_built = "this kftrain-trainer was built without NCCL";

}  // namespace

struct NcclGroup::Impl {};

CudaFacts probe_cuda() {
    return CudaFacts{};
}

util::Result<std::string> NcclGroup::make_id() {
    return util::error(k_not_built);
}

util::Result<std::unique_ptr<NcclGroup>> NcclGroup::connect(const std::string&, int, int, int,
                                                            std::chrono::milliseconds) {
    return util::error(k_not_built);
}

NcclGroup::NcclGroup(std::unique_ptr<Impl> impl) : m_impl(std::move(impl)) {}

NcclGroup::~NcclGroup() = default;

util::Result<std::unique_ptr<NcclGroup::Op>> NcclGroup::allreduce_sum(void*, std::size_t, NcclType,
                                                                      bool) {
    return util::error(k_not_built);
}

util::Result<std::unique_ptr<NcclGroup::Op>> NcclGroup::broadcast(void*, std::size_t, NcclType,
                                                                  bool) {
    return util::error(k_not_built);
}

int NcclGroup::device() const {
    return -1;
}

}  // namespace kftrain::trainer::comm
