#include "job/context.h"

#include "util/text.h"

namespace kftrain::job {

int report_error(Context& ctx, const std::string& message, int code) {
    ctx.err << "kftrain: error: " << util::escape_controls(message) << "\n";
    return code;
}

}  // namespace kftrain::job
