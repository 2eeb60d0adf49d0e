#pragma once

#include <CLI/CLI.hpp>
#include <memory>

#include "cli/context.h"
#include "job/exit_codes.h"
#include "util/result.h"

namespace kftrain::cli {

// Run a verb kubectl's way. Its Options hold every flag and argument and have three steps:
//   util::Status complete(const Context&)  derive what the flags leave open from the world:
//                                          the namespace, the job file, price catalogs
//   util::Status validate()                check the flag values and parse them into typed
//                                          ones (-o, durations, --dry-run); pure: it reads
//                                          nothing but the options; the message names the
//                                          flag and the value
//   int run(Context&) const                do the work; return the exit code
// The first error of complete() or validate() is printed as one "kftrain: error: ..." line and
// ends the verb with exit code 2 (bad input), or the code the error carries.
template <typename Options>
int run_verb(Options& options, Context& ctx) {
    if (util::Status global = check_global_options(ctx.global); !global) {
        return report_error(ctx, global.error(), k_exit_bad_input);
    }
    util::Status completed = options.complete(ctx);
    if (!completed) {
        return report_error(ctx, completed.error(), completed.error_code(k_exit_bad_input));
    }
    util::Status valid = options.validate();
    if (!valid) {
        return report_error(ctx, valid.error(), k_exit_bad_input);
    }
    return options.run(ctx);
}

// Run options' verb (run_verb) when the command line names the subcommand.
template <typename Options>
void run_when_parsed(CLI::App& sub, std::shared_ptr<Options> options, Context& ctx) {
    sub.callback([options, &ctx] { ctx.exit_code = run_verb(*options, ctx); });
}

}  // namespace kftrain::cli
