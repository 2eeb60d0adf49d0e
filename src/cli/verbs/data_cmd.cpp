#include "cli/verbs/data_cmd.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <memory>

#include "backend/select.h"
#include "cli/flags.h"
#include "cli/verb.h"
#include "cli/view/listing_view.h"
#include "job/names.h"
#include "staging/claim_path.h"
#include "util/time_text.h"

namespace kftrain::cli {
namespace {

namespace fs = std::filesystem;

constexpr const char* k_data_examples =
    "Examples:\n"
    "  # Copy a data set into the claim a job file mounts, under /mnist\n"
    "  kftrain data put ./mnist --claim mnist-data --path /mnist -n ml-training\n"
    "  # Copy the checkpoints back\n"
    "  kftrain data get ./out --claim training-checkpoints --path /mnist-ddp -n ml-training\n"
    "  # List what a claim holds\n"
    "  kftrain data ls --claim mnist-data\n"
    "  # On this machine: the claim is the localPath the job file's volume gives it\n"
    "  kftrain data put ./mnist --claim mnist-data --local -f examples/mnist-local.yaml\n\n"
    "On a cluster each command starts a short-lived helper pod that mounts the claim\n"
    "(read-only for get and ls), copies with tar through kubectl exec, and deletes the pod\n"
    "when done, on failure and on Ctrl-C. get writes only files and directories, inside\n"
    "OUT_DIR, without setuid bits, and replaces existing files only with --force.";

// Add the flags every data subcommand takes.
void add_common_flags(CLI::App& sub, DataOptions& o) {
    sub.add_option("--claim", o.claim, "PersistentVolumeClaim to reach")->required();
    sub.add_option("--path", o.path, "Directory inside the claim (default: /, its root)");
    sub.add_option("--image", o.image,
                   fmt::format("Image of the helper pod: it needs tar, find and stat (default: "
                               "{})",
                               staging::k_helper_image));
    sub.add_option("--timeout", o.timeout,
                   duration_help("How long the helper pod may take to become Ready (default: "
                                 "2m)"));
    sub.add_option("-f,--file", o.input.file,
                   "Job file whose volume for --claim gives its localPath (local backend; on a "
                   "cluster it gives the namespace)");
    sub.add_option("--local-path", o.local_path,
                   "Directory the claim is on this machine (implies the local backend)");
}

CLI::App* add_action(CLI::App& data, Context& ctx, DataOptions::Action action, const char* name,
                     const char* help) {
    auto options = std::make_shared<DataOptions>();
    options->action = action;
    auto* sub = data.add_subcommand(name, help);
    sub->footer(k_data_examples);
    if (action == DataOptions::Action::Put) {
        sub->add_option("LOCAL_DIR", options->dir, "Local directory whose contents to copy")
            ->required();
    } else if (action == DataOptions::Action::Get) {
        sub->add_option("OUT_DIR", options->dir, "Local directory to copy into (made if missing)")
            ->required();
        sub->add_flag("--force", options->force,
                      "Replace files already in OUT_DIR (default: refuse, copying nothing)");
    } else {
        sub->add_option("-o,--output", options->output,
                        view::output_flag_help(view::k_table_formats));
    }
    add_common_flags(*sub, *options);
    if (action == DataOptions::Action::Put) {
        sub->add_flag("--as-root", options->as_root,
                      "Run the helper pod as root, for a volume only root may write (default: "
                      "user 65534)");
    }
    run_when_parsed(*sub, options, ctx);
    return sub;
}

}  // namespace

void setup_data(CLI::App& app, Context& ctx) {
    auto* data = app.add_subcommand("data", "Copy data into and out of a PersistentVolumeClaim");
    data->footer(k_data_examples);
    data->require_subcommand(1);
    add_action(*data, ctx, DataOptions::Action::Put, "put",
               "Copy a local directory's contents into a claim");
    add_action(*data, ctx, DataOptions::Action::Get, "get",
               "Copy a directory of a claim into a local directory");
    add_action(*data, ctx, DataOptions::Action::List, "ls", "List the files in a claim");
}

util::Status DataOptions::complete(Context& ctx) {
    namespace_ = ctx.global.namespace_;
    std::error_code ec;
    if (action == Action::Put) {
        if (!fs::exists(dir, ec)) {
            return util::error(fmt::format("LOCAL_DIR: no such directory (got '{}')", dir));
        }
        if (!fs::is_directory(dir, ec)) {
            return util::error(fmt::format("LOCAL_DIR: not a directory (got '{}')", dir));
        }
    }
    if (action == Action::Get && fs::exists(dir, ec) && !fs::is_directory(dir, ec)) {
        return util::error(fmt::format("OUT_DIR: exists and is not a directory (got '{}')", dir));
    }
    if (!input.file.empty()) {
        auto spec = load::load_job(input, ctx.global);
        if (!spec) {
            return spec.error_value();
        }
        namespace_ = spec->namespace_;
        job_backend = spec->backend;
        volumes = spec->volumes;
    }
    if (!local_path.empty()) {
        ctx.global.local = true;  // the claim is a directory here
    }
    return util::ok_status();
}

util::Status DataOptions::validate() {
    if (auto name = job::check_object_name("--claim", claim); !name) {
        return name;
    }
    auto normalized = staging::normalize_claim_path(path);
    if (!normalized) {
        return normalized.error_value();
    }
    claim_path = *normalized;
    auto seconds = util::parse_duration_flag("--timeout", timeout, util::k_positive_duration);
    if (!seconds) {
        return seconds.error_value();
    }
    start_timeout = std::chrono::seconds(std::max<int64_t>(1, static_cast<int64_t>(*seconds)));
    if (image.empty()) {
        image = staging::k_helper_image;
    }
    if (std::any_of(image.begin(), image.end(),
                    [](char c) { return static_cast<unsigned char>(c) <= ' '; })) {
        return util::error(fmt::format("--image: must be an image reference such as {} (got '{}')",
                                       staging::k_helper_image, image));
    }
    if (action == Action::List) {
        auto parsed = view::parse_output_format(output, view::k_table_formats);
        if (!parsed) {
            return parsed.error_value();
        }
        format = *parsed;
    }
    return util::ok_status();
}

int DataOptions::run(Context& ctx) const {
    job::ClaimTarget target{claim,         claim_path, namespace_, image,  as_root,
                            start_timeout, local_path, input.file, volumes};
    auto backend = backend::make_backend(ctx, job_backend, namespace_);
    job::Reporter report{ctx.out, ctx.err};
    util::Status done = util::ok_status();
    switch (action) {
        case Action::Put:
            done = backend->put_data(target, dir, report);
            break;
        case Action::Get:
            done = backend->get_data(target, dir, force, report);
            break;
        case Action::List: {
            auto listing = backend->list_data(target, report);
            if (listing) {
                view::print_listing(*listing, format, ctx.out);
            }
            done = listing ? util::ok_status() : util::Status(listing.error_value());
            break;
        }
    }
    return done ? k_exit_ok : report_error(ctx, done.error(), done.error_code(k_exit_cluster));
}

}  // namespace kftrain::cli
