#include "cli/context.h"

namespace kftrain::cli {

int report_error(Context& ctx, const std::string& message, int code) {
    ctx.err << "kftrain: error: " << message << "\n";
    return code;
}

}  // namespace kftrain::cli
