#include "cli/search/search_backend.h"

#include "cli/backend_select.h"
#include "cli/search/kube_search.h"
#include "cli/search/local_search.h"

namespace kftrain::cli::search {

std::unique_ptr<SearchBackend> make_search_backend(Context& ctx, const std::string& job_backend,
                                                   const std::string& ns) {
    if (use_local_backend(ctx, job_backend)) {
        return make_local_search(ctx.err);
    }
    return make_kube_search(ctx.global, ns);
}

}  // namespace kftrain::cli::search
