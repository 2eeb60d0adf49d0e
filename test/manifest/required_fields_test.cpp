#include "manifest/render/required_fields.h"

#include <fmt/format.h>

#include <algorithm>
#include <catch2/catch.hpp>

#include "manifest/load.h"
#include "manifest/render/render.h"
#include "support/jobs.h"

using namespace kftrain;

namespace {

// The built-in template of a kind with its first `from` replaced by `to`.
manifest::Template edited(manifest::JobKind kind, const std::string& from, const std::string& to) {
    manifest::Template tmpl = manifest::default_template(kind);
    size_t at = tmpl.text.find(from);
    REQUIRE(at != std::string::npos);
    tmpl.text.replace(at, from.size(), to);
    tmpl.name = "team.yaml";
    return tmpl;
}

int line_number_of(const std::string& text, const std::string& needle) {
    size_t at = text.find(needle);
    REQUIRE(at != std::string::npos);
    return 1 + static_cast<int>(std::count(text.begin(), text.begin() + at, '\n'));
}

std::string render_error(const manifest::JobSpec& spec, const manifest::Template& tmpl) {
    auto rendered = manifest::render_job(spec, tmpl);
    return rendered ? std::string("(rendered)") : rendered.error();
}

const std::string k_master = "spec.pytorchReplicaSpecs.Master.template.spec.containers[pytorch]";

}  // namespace

TEST_CASE("the built-in templates render every field their kind requires", "[manifest]") {
    for (const char* text : {"name: a\n", "name: a\nreplicas: 1\n", "name: a\nkind: TrainJob\n"}) {
        INFO(text);
        auto spec = test::load_job(text);
        CHECK(render_error(spec, manifest::default_template(spec.kind)) == "(rendered)");
    }
}

TEST_CASE("required paths follow the kind and the Worker replicas", "[manifest]") {
    CHECK(manifest::required_paths(test::load_job("name: a\nreplicas: 1\n")) ==
          std::vector<std::string>{"apiVersion", "metadata.name", k_master + ".image"});
    CHECK(manifest::required_paths(test::load_job("name: a\nkind: TrainJob\n")) ==
          std::vector<std::string>{"apiVersion", "metadata.name", "spec.runtimeRef.name",
                                   "spec.trainer.image", "spec.trainer.numNodes"});
    CHECK(manifest::required_paths(test::load_job("name: a\n")).size() == 5);
}

TEST_CASE("a template whose placeholder erases a required field names the placeholder",
          "[manifest]") {
    auto spec = test::load_job("name: a\n");
    auto tmpl = edited(manifest::JobKind::PyTorchJob, "image: \"{{ image }}\"",
                       "image: \"{{ priorityClassName }}\"");
    CHECK(render_error(spec, tmpl) ==
          fmt::format("team.yaml:{}: the rendered PyTorchJob has no {}.image, which it needs: {{{{ "
                      "priorityClassName }}}} there leaves it out for this job (the built-in "
                      "template has {{{{ image }}}} there)",
                      line_number_of(tmpl.text, "{{ priorityClassName }}\""), k_master));
}

TEST_CASE("a template that renames or drops the pytorch container is refused", "[manifest]") {
    auto spec = test::load_job("name: a\n");
    auto renamed =
        edited(manifest::JobKind::PyTorchJob, "- name: pytorch", "- name: \"{{ runtime }}x\"");
    CHECK(render_error(spec, renamed) ==
          fmt::format("team.yaml:{}: the rendered PyTorchJob has no {}.image, which it needs: "
                      "{{{{ runtime }}}}x there leaves it out for this job (the built-in template "
                      "has {{{{ image }}}} there)",
                      line_number_of(renamed.text, "{{ runtime }}x"), k_master));
    auto dropped = edited(manifest::JobKind::PyTorchJob, "          containers:\n",
                          "          containers: \"{{ nodeSelector }}\"\n          unused:\n");
    CHECK(render_error(spec, dropped) ==
          fmt::format("team.yaml:{}: the rendered PyTorchJob has no {}.image, which it needs: "
                      "{{{{ nodeSelector }}}} there leaves it out for this job (the built-in "
                      "template has {{{{ image }}}} there)",
                      line_number_of(dropped.text, "{{ nodeSelector }}"), k_master));
}

TEST_CASE("a template without the Worker or with a wrong apiVersion is refused", "[manifest]") {
    auto spec = test::load_job("name: a\n");
    auto no_count = edited(manifest::JobKind::PyTorchJob, "replicas: \"{{ workerReplicas }}\"",
                           "replicas: \"{{ elasticPolicy }}\"");
    CHECK(render_error(spec, no_count) ==
          fmt::format("team.yaml:{}: the rendered PyTorchJob has no "
                      "spec.pytorchReplicaSpecs.Worker.replicas, which it needs: {{{{ "
                      "elasticPolicy }}}} there leaves it out for this job (the built-in template "
                      "has {{{{ workerReplicas }}}} there)",
                      line_number_of(no_count.text, "{{ elasticPolicy }}\"\n      restartPolicy")));
    auto old_api = edited(manifest::JobKind::PyTorchJob, "apiVersion: kubeflow.org/v1",
                          "apiVersion: kubeflow.org/v1beta2");
    CHECK(render_error(spec, old_api) ==
          "team.yaml: apiVersion must be kubeflow.org/v1 for a PyTorchJob (got "
          "kubeflow.org/v1beta2)");
    auto no_name = edited(manifest::JobKind::PyTorchJob, "  name: \"{{ name }}\"\n", "");
    CHECK(render_error(spec, no_name) ==
          "team.yaml: the rendered PyTorchJob has no metadata.name, which it needs: the template "
          "does not set it (the built-in template has {{ name }} there)");
}

TEST_CASE("a TrainJob template that erases the trainer's image is refused", "[manifest]") {
    auto spec = test::load_job("name: a\nkind: TrainJob\n");
    auto tmpl = edited(manifest::JobKind::TrainJob, "image: \"{{ image }}\"",
                       "image: \"{{ activeDeadlineSeconds }}\"");
    CHECK(
        render_error(spec, tmpl) ==
        fmt::format("team.yaml:{}: the rendered TrainJob has no spec.trainer.image, which it "
                    "needs: {{{{ activeDeadlineSeconds }}}} there leaves it out for this job (the "
                    "built-in template has {{{{ image }}}} there)",
                    line_number_of(tmpl.text, "image: \"{{ activeDeadlineSeconds")));
    auto map_image =
        edited(manifest::JobKind::TrainJob, "image: \"{{ image }}\"", "image: \"{{ podLabels }}\"");
    CHECK(render_error(spec, map_image) ==
          "team.yaml: the rendered TrainJob's spec.trainer.image must be a non-empty value (got "
          "a map)");
}
