#include "support/crd_schema.h"

#include <yaml-cpp/yaml.h>

#include <catch2/catch.hpp>
#include <cstdlib>

#include "manifest/load.h"
#include "manifest/yaml/emit.h"
#include "support/paths.h"

namespace kftrain::test {
namespace {

using nlohmann::json;

class SchemaChecker {
  public:
    std::vector<std::string> problems;

    void check(const json& value, const json& schema, const std::string& path) {
        if (schema.contains("anyOf")) {
            for (const auto& branch : schema["anyOf"]) {
                SchemaChecker probe;
                probe.check(value, branch, path);
                if (probe.problems.empty()) {
                    return;
                }
            }
            problems.push_back(path + ": matches none of anyOf");
            return;
        }
        bool int_or_string = schema.value("x-kubernetes-int-or-string", false);
        if (int_or_string) {
            if (!value.is_number_integer() && !value.is_string()) {
                problems.push_back(path + ": expected an integer or a string");
            }
            return;
        }
        std::string type = schema.value("type", "");
        if (type == "object") {
            check_object(value, schema, path);
        } else if (type == "array") {
            if (!value.is_array()) {
                problems.push_back(path + ": expected an array");
                return;
            }
            for (size_t i = 0; i < value.size(); ++i) {
                check(value[i], schema.value("items", json::object()),
                      path + "[" + std::to_string(i) + "]");
            }
        } else if (type == "string" && !value.is_string()) {
            problems.push_back(path + ": expected a string, got " + value.dump());
        } else if (type == "integer" && !value.is_number_integer()) {
            problems.push_back(path + ": expected an integer, got " + value.dump());
        } else if (type == "boolean" && !value.is_boolean()) {
            problems.push_back(path + ": expected a boolean, got " + value.dump());
        } else if (type == "number" && !value.is_number()) {
            problems.push_back(path + ": expected a number, got " + value.dump());
        }
        if (schema.contains("enum")) {
            bool found = false;
            for (const auto& allowed : schema["enum"]) {
                found = found || allowed == value;
            }
            if (!found) {
                problems.push_back(path + ": not one of " + schema["enum"].dump());
            }
        }
    }

  private:
    void check_object(const json& value, const json& schema, const std::string& path) {
        if (!value.is_object()) {
            problems.push_back(path + ": expected an object");
            return;
        }
        for (const auto& required : schema.value("required", json::array())) {
            if (!value.contains(required.get<std::string>())) {
                problems.push_back(path + ": missing required " + required.get<std::string>());
            }
        }
        bool open = schema.value("x-kubernetes-preserve-unknown-fields", false) ||
                    (!schema.contains("properties") && !schema.contains("additionalProperties"));
        for (const auto& [key, child] : value.items()) {
            std::string child_path = path + "." + key;
            if (schema.contains("properties") && schema["properties"].contains(key)) {
                check(child, schema["properties"][key], child_path);
            } else if (schema.contains("additionalProperties") &&
                       schema["additionalProperties"].is_object()) {
                check(child, schema["additionalProperties"], child_path);
            } else if (!open) {
                problems.push_back(child_path + ": unknown field");
            }
        }
    }
};

}  // namespace

std::vector<std::string> check_against_crd(const nlohmann::json& document,
                                           const std::string& crd_path) {
    YAML::Node crd = YAML::LoadFile(crd_path);
    json schema = manifest::to_json(crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]);
    SchemaChecker checker;
    checker.check(document, schema, "");
    return checker.problems;
}

bool crd_readable(const std::string& crd_path) {
    if (manifest::read_file(crd_path)) {
        return true;
    }
    const char* ci = std::getenv("CI");
    if (ci != nullptr && *ci != '\0') {
        FAIL("CRD not found at " << crd_path << " (CI is set: the schema check must run)");
    }
    WARN("CRD not found at " << crd_path << ": schema check skipped");
    return false;
}

std::string crd_file(manifest::JobKind kind) {
    if (kind == manifest::JobKind::TrainJob) {
        return kftrain::test::trainjob_crd_file();
    }
    if (kind == manifest::JobKind::PyTorchJob) {
        return kftrain::test::pytorchjob_crd_file();
    }
    const std::string plural = manifest::kind_resource(kind);
    return std::string(kftrain::test::operator_crd_dir()) + "/kubeflow.org_" +
           plural.substr(0, plural.find('.')) + ".yaml";
}

}  // namespace kftrain::test
