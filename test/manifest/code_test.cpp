// The folder a job ships (code): which files go, their keys, the size limit, and what every
// kind renders with it, checked against the kind's CRD.
#include "manifest/code.h"

#include <catch2/catch.hpp>

#include "manifest/k8s/rules.h"
#include "manifest/render/render.h"
#include "manifest/yaml/emit.h"
#include "support/crd_schema.h"
#include "support/jobs.h"

using namespace kftrain;
using manifest::code_excluded;
using nlohmann::json;

namespace {

manifest::CodeBundle bundle_of(std::vector<manifest::CodeFile> files) {
    manifest::CodeBundle bundle;
    bundle.folder = "proj";
    bundle.files = std::move(files);
    bundle.hash = "0123456789";
    return bundle;
}

const std::string k_code_job = "name: code\ncommand: [python3, train.py]\ncode:\n  path: .\n";

}  // namespace

TEST_CASE("code excludes read patterns as .gitignore does", "[manifest][code]") {
    const auto& defaults = manifest::default_code_excludes();
    CHECK(code_excluded(".git", true, defaults));
    CHECK(code_excluded("pkg/__pycache__", true, defaults));
    CHECK(code_excluded("pkg/mod.pyc", false, defaults));
    CHECK(code_excluded(".venv", true, defaults));
    CHECK_FALSE(code_excluded(".git", false, defaults));  // "name/" is a folder only
    CHECK_FALSE(code_excluded("train.py", false, defaults));
    CHECK_FALSE(code_excluded(".gitignore", false, defaults));
    const std::vector<std::string> mine = {"data/", "*.ckpt", "/notes.txt", "docs/*.md"};
    CHECK(code_excluded("data", true, mine));
    CHECK(code_excluded("sub/data", true, mine));
    CHECK(code_excluded("sub/model.ckpt", false, mine));
    CHECK(code_excluded("notes.txt", false, mine));
    CHECK_FALSE(code_excluded("sub/notes.txt", false, mine));  // anchored at the folder
    CHECK(code_excluded("docs/a.md", false, mine));
    CHECK_FALSE(code_excluded("docs/sub/a.md", false, mine));
    CHECK(manifest::code_pattern_problem("!keep.py").empty());  // brings keep.py back
    CHECK(manifest::code_pattern_problem("!") == "must name files or folders");
    CHECK(manifest::code_pattern_problem("") == "must name files or folders");
}

TEST_CASE("each code path gets a key of its own that a ConfigMap accepts", "[manifest][code]") {
    CHECK(manifest::code_key("train.py") == "train.py");
    CHECK(manifest::code_key("pkg/helper.py") == "pkg_2fhelper.py");
    CHECK(manifest::code_key("pkg_2fhelper.py") == "pkg_5f2fhelper.py");  // no clash
    CHECK(manifest::code_key("a b.txt") == "a_20b.txt");
    CHECK(manifest::code_path_problem("pkg/helper.py").empty());
    CHECK(manifest::code_path_problem("bad\nname") == "holds a control character");
    CHECK(manifest::code_path_problem(std::string("caf\xe9")) ==
          "is not UTF-8, which a volume's file names must be");
    CHECK_FALSE(manifest::code_path_problem(std::string(300, 'a')).empty());
}

TEST_CASE("code past a ConfigMap's 1 MiB is refused naming the total and the largest files",
          "[manifest][code]") {
    auto small = bundle_of({{"train.py", false, "print(1)\n"}});
    CHECK(manifest::check_code_size(small));
    auto large = bundle_of({{"train.py", false, "print(1)\n"},
                            {"weights.bin", false, std::string(900 * 1024, 'w')},
                            {"data.csv", false, std::string(200 * 1024, 'd')}});
    auto refused = manifest::check_code_size(large);
    REQUIRE_FALSE(refused);
    CHECK(refused.error_code(0) == 2);
    CHECK(refused.error() ==
          "code.path: proj holds 1126436 bytes in 3 files, past the 1 MiB (1048576 bytes) a "
          "ConfigMap holds; the largest: weights.bin (921600 bytes), data.csv (204800 bytes), "
          "train.py (9 bytes). Leave files out with code.exclude or a .kftrainignore file, put "
          "data on a claim with `kftrain data put`, or build an image with the code in it "
          "(docs/code.md)");
}

TEST_CASE("the code ConfigMap holds text as data and binaries as binaryData, immutable",
          "[manifest][code]") {
    auto spec = test::load_job(k_code_job);
    auto bundle =
        bundle_of({{"run.sh", true, "#!/bin/sh\n"}, {"blob", false, std::string("\0\xff", 2)}});
    const json map = manifest::to_json(manifest::code_config_map(spec, bundle, {spec.name}));
    CHECK(map["metadata"]["name"] == "code-code-0123456789");
    CHECK(map["metadata"]["labels"]["kftrain.io/code-of"] == "code");
    CHECK(map["metadata"]["labels"]["kftrain.io/code-for"] == "job");
    CHECK(map["immutable"] == true);
    CHECK(map["data"]["run.sh"] == "#!/bin/sh\n");
    CHECK(map["binaryData"]["blob"] == "AP8=");
}

TEST_CASE("every kind mounts the code read-only at /workspace and starts there, per its CRD",
          "[manifest][code]") {
    const auto bundle =
        bundle_of({{"train.py", false, "print(1)\n"}, {"pkg/run.sh", true, "#!/bin/sh\n"}});
    for (const char* kind : {"PyTorchJob", "TFJob", "XGBoostJob", "JAXJob", "TrainJob"}) {
        CAPTURE(kind);
        auto spec = test::load_job(std::string("kind: ") + kind + "\n" + k_code_job);
        manifest::attach_code(spec, bundle, {spec.name});
        const json rendered = test::render_json(spec);
        const std::string crd = test::crd_file(spec.kind);
        REQUIRE(test::crd_readable(crd));
        CHECK(test::check_against_crd(rendered, crd).empty());
        const std::string text = rendered.dump();
        CHECK(
            text.find(
                R"("configMap":{"items":[{"key":"train.py","mode":420,"path":"train.py"},{"key":"pkg_2frun.sh","mode":493,"path":"pkg/run.sh"}],"name":"code-code-0123456789"})") !=
            std::string::npos);
        CHECK(text.find(R"("mountPath":"/workspace","name":"kftrain-code","readOnly":true)") !=
              std::string::npos);
        if (spec.kind == manifest::JobKind::TrainJob) {
            CHECK(
                rendered["spec"]["trainer"]["command"] ==
                json{"sh", "-c", "cd \"$0\" && exec \"$@\"", "/workspace", "python3", "train.py"});
            CHECK_FALSE(rendered["spec"]["trainer"].contains("image"));  // the runtime's
        } else {
            CHECK(text.find(R"("workingDir":"/workspace")") != std::string::npos);
            CHECK(text.find(manifest::default_code_image(spec)) != std::string::npos);
        }
    }
}

TEST_CASE("a job file's own image stays, and code without a command of its own is refused",
          "[manifest][code]") {
    auto spec = test::load_job(k_code_job + "image: registry.example/mine:1\n");
    manifest::attach_code(spec, bundle_of({{"train.py", false, ""}}), {spec.name});
    CHECK(spec.image == "registry.example/mine:1");
    auto trainer = test::try_load_job("name: code\ncode:\n  path: .\n");
    REQUIRE_FALSE(trainer);
    CHECK(trainer.error().find("code.path: ships a program of your own: set command") !=
          std::string::npos);
    auto clash =
        test::try_load_job(k_code_job + "volumes:\n- {name: d, claim: c, mountPath: /workspace}\n");
    REQUIRE_FALSE(clash);
    CHECK(clash.error().find("code.mountPath: is a volume's mountPath too") != std::string::npos);
    auto slash = test::try_load_job(k_code_job +
                                    "volumes:\n- {name: d, claim: c, mountPath: /workspace/}\n");
    REQUIRE_FALSE(slash);
    CHECK(slash.error().find("code.mountPath: is a volume's mountPath too") != std::string::npos);
    auto inside = test::try_load_job(
        k_code_job + "volumes:\n- {name: d, claim: c, mountPath: /workspace/data}\n");
    REQUIRE_FALSE(inside);
    CHECK(inside.error().find("code.mountPath: holds volume d's mountPath /workspace/data (the "
                              "code is mounted read-only: nothing can be mounted inside it) (got "
                              "/workspace)") != std::string::npos);
    auto root = test::try_load_job(
        "name: code\ncommand: [python3, train.py]\ncode:\n  path: .\n"
        "  mountPath: /\n");
    REQUIRE_FALSE(root);
    CHECK(root.error().find("code.mountPath: must not be /") != std::string::npos);
}

TEST_CASE("code files and env values with CR, DEL and U+FFFE read back from the YAML byte for byte",
          "[manifest][code]") {
    const std::vector<std::string> texts = {"x = 1\ry = 2\n",
                                            "print('done')\r",
                                            "\r",
                                            "a\r\nb\r\n",
                                            "del = '\x7f'\n",
                                            "odd = '\xef\xbf\xbe'\n",
                                            "bom \xef\xbb\xbf\n",
                                            "nel \xc2\x85 ls \xe2\x80\xa8\n",
                                            "quote \" back \\ \x01\n",
                                            "caf\xc3\xa9 \xf0\x9f\x98\x80 \r"};
    std::vector<manifest::CodeFile> files;
    for (size_t i = 0; i < texts.size(); ++i) {
        files.push_back({"f" + std::to_string(i) + ".py", true, texts[i]});
    }
    auto spec = test::load_job(k_code_job);
    const std::string yaml = manifest::to_yaml(manifest::code_config_map(
        spec, bundle_of(files), {spec.name, manifest::CodeOwnerKind::job}));
    const YAML::Node back = YAML::Load(yaml);
    for (size_t i = 0; i < texts.size(); ++i) {
        INFO(i);
        const std::string key = "f" + std::to_string(i) + ".py";
        REQUIRE(back["data"][key]);
        CHECK(back["data"][key].as<std::string>() == texts[i]);
    }

    YAML::Node env(YAML::NodeType::Map);
    for (size_t i = 0; i < texts.size(); ++i) {
        env["V" + std::to_string(i)] = manifest::string_node(texts[i]);
    }
    env["kftrain-escaped-0-"] = manifest::string_node("a placeholder's own text\r");
    const YAML::Node env_back = YAML::Load(manifest::to_yaml(env));
    for (size_t i = 0; i < texts.size(); ++i) {
        CHECK(env_back["V" + std::to_string(i)].as<std::string>() == texts[i]);
    }
    CHECK(env_back["kftrain-escaped-0-"].as<std::string>() == "a placeholder's own text\r");
}

TEST_CASE("a job and a search of one name never share their code ConfigMap or its labels",
          "[manifest][code]") {
    const std::string name(63, 'a');  // the longest name a job or search has
    auto spec = test::load_job(k_code_job);
    const auto bundle = bundle_of({{"train.py", false, ""}});
    const json job = manifest::to_json(
        manifest::code_config_map(spec, bundle, {name, manifest::CodeOwnerKind::job}));
    const json search = manifest::to_json(
        manifest::code_config_map(spec, bundle, {name, manifest::CodeOwnerKind::search}));
    CHECK(job["metadata"]["name"] == name + "-code-0123456789");
    CHECK(search["metadata"]["name"] == name + ".search-code-0123456789");
    for (const json* map : {&job, &search}) {
        const std::string map_name = (*map)["metadata"]["name"];
        CHECK(manifest::object_name_problem(map_name, "ConfigMap").empty());
        for (const auto& [key, value] : (*map)["metadata"]["labels"].items()) {
            CAPTURE(key);
            CHECK(manifest::label_value_problem(value.get<std::string>()).empty());
        }
    }
    CHECK(job["metadata"]["labels"]["kftrain.io/code-for"] == "job");
    CHECK(search["metadata"]["labels"]["kftrain.io/code-for"] == "search");
    // What delete selects: each its own.
    CHECK(manifest::code_owner_selector({"x", manifest::CodeOwnerKind::job}) ==
          "kftrain.io/code-of=x,kftrain.io/code-for=job");
    CHECK(manifest::code_owner_selector({"x", manifest::CodeOwnerKind::search}) ==
          "kftrain.io/code-of=x,kftrain.io/code-for=search");
}
