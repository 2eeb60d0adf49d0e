#include "cli/verbs/job/archive_cmd.h"

#include <memory>

#include "backend/select.h"
#include "cli/verb.h"
#include "job/exit_codes.h"
#include "job/names.h"
#include "util/text.h"

namespace kftrain::cli {
namespace {

constexpr const char* k_archive_examples =
    "Examples:\n"
    "  # Keep the record of a finished job now, before its ttlSecondsAfterFinished removes it\n"
    "  kftrain archive mnist-ddp -n ml-training\n"
    "  # Later, once it is gone: its status, logs and diagnosis from that record\n"
    "  kftrain logs mnist-ddp -n ml-training\n\n"
    "kftrain records a finished cluster job by itself the first time status, wait, logs, list,\n"
    "describe, diagnose or delete sees it; archive does it without waiting for one of them.";

}  // namespace

void setup_archive(CLI::App& app, Context& ctx) {
    auto options = std::make_shared<ArchiveOptions>();
    auto* sub =
        app.add_subcommand("archive", "Keep the record of a finished cluster job in history now");
    sub->footer(k_archive_examples);
    sub->add_option("job", options->job, "Name of the job")->required();
    run_when_parsed(*sub, options, ctx);
}

util::Status ArchiveOptions::complete(const Context& ctx) {
    namespace_ = ctx.global.namespace_;
    return util::ok_status();
}

util::Status ArchiveOptions::validate() {
    return job::check_object_name("job name", job);
}

int ArchiveOptions::run(Context& ctx) const {
    auto archived = backend::archive(ctx, namespace_, job);
    if (!archived) {
        return report_error(ctx, archived.error(), archived.error_code(k_exit_cluster));
    }
    ctx.out << (archived->already ? "already recorded: " : "")
            << util::escape_controls(archived->path) << "\n";
    return k_exit_ok;
}

}  // namespace kftrain::cli
