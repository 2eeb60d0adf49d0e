#include "cli/verbs/version_cmd.h"

#include <fmt/format.h>

#include <memory>

#include "cli/verb.h"
#include "job/exit_codes.h"
#include "manifest/job_kind.h"

namespace kftrain::cli {
namespace {

constexpr const char* k_version_examples =
    "Examples:\n"
    "  # The version and the job kinds it renders\n"
    "  kftrain version\n"
    "  # For scripts (kubectl version's shape; no cluster is asked)\n"
    "  kftrain version -o json";

// A job kind and the operator releases whose API it renders for.
struct KindSupport {
    manifest::JobKind kind;
    const char* supports;
};

constexpr KindSupport k_supported[] = {
    {manifest::JobKind::PyTorchJob, "Training Operator v1.3 to v1.9"},
    {manifest::JobKind::TrainJob, "Kubeflow Trainer v2.2 to v2.3"},
    {manifest::JobKind::TFJob, "Training Operator v1.9"},
    {manifest::JobKind::XGBoostJob, "Training Operator v1.9"},
    {manifest::JobKind::JAXJob, "Training Operator v1.9"},
};

// The platform kftrain was built for, as Go (and so kubectl) names it: linux/amd64.
constexpr const char* k_platform =
#if defined(__x86_64__)
    "linux/amd64";
#elif defined(__aarch64__)
    "linux/arm64";
#elif defined(__powerpc64__)
    "linux/ppc64le";
#elif defined(__s390x__)
    "linux/s390x";
#else
    "linux/unknown";
#endif

}  // namespace

nlohmann::ordered_json version_data() {
    nlohmann::ordered_json kinds = nlohmann::ordered_json::array();
    for (const auto& supported : k_supported) {
        kinds.push_back({{"kind", manifest::kind_name(supported.kind)},
                         {"apiVersion", manifest::kind_api_version(supported.kind)},
                         {"supports", supported.supports}});
    }
    return {{"clientVersion", {{"version", KFTRAIN_VERSION}, {"platform", k_platform}}},
            {"kinds", kinds}};
}

void setup_version(CLI::App& app, Context& ctx) {
    auto options = std::make_shared<VersionOptions>();
    auto* sub = app.add_subcommand("version", "Print the version of kftrain");
    sub->footer(k_version_examples);
    sub->add_option("-o,--output", options->output,
                    view::output_flag_help(view::k_version_formats, true));
    run_when_parsed(*sub, options, ctx);
}

util::Status VersionOptions::complete(const Context&) {
    return util::ok_status();
}

util::Status VersionOptions::validate() {
    auto parsed = view::parse_optional_output_format(output, view::k_version_formats);
    if (!parsed) {
        return parsed.error_value();
    }
    format = *parsed;
    return util::ok_status();
}

int VersionOptions::run(Context& ctx) const {
    const nlohmann::ordered_json data = version_data();
    if (format) {
        view::print_data(ctx.out, data, *format);
        return k_exit_ok;
    }
    ctx.out << "kftrain " << data["clientVersion"]["version"].get<std::string>() << "\n";
    for (const auto& kind : data["kinds"]) {
        ctx.out << fmt::format("{} apiVersion {} ({})\n", kind["kind"].get<std::string>(),
                               kind["apiVersion"].get<std::string>(),
                               kind["supports"].get<std::string>());
    }
    return k_exit_ok;
}

}  // namespace kftrain::cli
