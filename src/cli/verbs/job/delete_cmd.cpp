#include "cli/verbs/job/delete_cmd.h"

#include <fmt/format.h>

#include <memory>

#include "backend/select.h"
#include "cli/verb.h"
#include "job/exit_codes.h"
#include "job/names.h"

namespace kftrain::cli {
namespace {

constexpr const char* k_delete_examples =
    "Examples:\n"
    "  # Delete a job; the operator removes its pods\n"
    "  kftrain delete mnist-ddp -n ml-training\n"
    "  # Return only once it is gone\n"
    "  kftrain delete mnist-ddp --wait\n"
    "  # A local job whose state cannot be read: stop what can be found of it, remove it\n"
    "  kftrain delete mnist-ddp --local --force";

// delete --force: a removal that reads no kind (local jobs only).
int run_forced(job::Backend& backend, const std::string& job, Context& ctx) {
    auto removed = backend.force_remove(job);
    if (!removed) {
        return report_error(ctx, removed.error(), removed.error_code(k_exit_cluster));
    }
    ctx.out << job << " deleted\n";
    return k_exit_ok;
}

}  // namespace

void setup_delete(CLI::App& app, Context& ctx) {
    auto options = std::make_shared<DeleteOptions>();
    auto* sub = app.add_subcommand("delete", "Delete a job and stop its replicas");
    sub->footer(k_delete_examples);
    sub->add_option("job", options->job, "Name of the job")->required();
    sub->add_flag("--wait", options->wait, "Return once the job is gone");
    sub->add_flag("--force", options->force,
                  "Local: delete a job even when its state cannot be read, after stopping every "
                  "process of it that can be identified");
    run_when_parsed(*sub, options, ctx);
}

util::Status DeleteOptions::complete(const Context& ctx) {
    namespace_ = ctx.global.namespace_;
    return util::ok_status();
}

util::Status DeleteOptions::validate() const {
    return job::check_object_name("job name", job);
}

int DeleteOptions::run(Context& ctx) const {
    auto backend = backend::make_backend(ctx, "", namespace_);
    if (force) {
        return run_forced(*backend, job, ctx);
    }
    // One lookup: a cluster that does not answer costs one deadline, not two.
    auto removed = backend->remove(job, wait);
    if (!removed) {
        return report_error(ctx, removed.error(), removed.error_code(k_exit_cluster));
    }
    ctx.out << job::job_ref(*removed, job) << " deleted\n";
    return k_exit_ok;
}

}  // namespace kftrain::cli
