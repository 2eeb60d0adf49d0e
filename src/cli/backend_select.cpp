#include "cli/backend.h"

namespace kftrain::cli {

std::unique_ptr<Backend> make_backend(Context& ctx, const std::string& /*job_backend*/) {
    // The local backend (--local, backend: local, or no kubeconfig) is chosen here.
    return make_kubernetes_backend(ctx.global, ctx.global.namespace_);
}

}  // namespace kftrain::cli
