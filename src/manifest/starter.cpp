#include "manifest/starter.h"

#include <fmt/format.h>

#include <algorithm>
#include <iterator>
#include <map>

#include "manifest/render/trainjob_fields.h"
#include "manifest/retries.h"
#include "manifest/schema.h"

namespace kftrain::manifest {
namespace {

// The keys a starter file sets, with their values as YAML text.
std::map<std::string, std::string> starter_values(const std::string& name, JobKind kind) {
    std::map<std::string, std::string> values = {
        {"name", name},
        {"namespace", "default"},
        {"image", "kftrain/trainer:latest"},
        {"replicas", "2"},
        {"resources.cpu", "\"2\""},
        {"resources.memory", "4Gi"},
        {"trainer.dataset", "mnist"},
        {"trainer.dataDir", "/data/mnist"},
        {"trainer.model", "mnist-cnn"},
        {"trainer.epochs", "3"},
        {"trainer.batchSize", "64"},
        {"trainer.lr", "0.01"},
        // A bounded retry budget (manifest/retries.h), so that a crash loop ends on its own.
        {"runPolicy.backoffLimit", std::to_string(backoff_limit_for_retries(k_default_retries))},
    };
    // restartPolicy stays at its default (OnFailure, commented), so that a PyTorchJob starter
    // also renders with --kind TrainJob, which has no such key.
    if (kind == JobKind::TrainJob) {
        values["kind"] = "TrainJob";
        values["runtime"] = "torch-distributed";
    }
    if (kind == JobKind::XGBoostJob || kind == JobKind::JAXJob || kind == JobKind::TFJob) {
        // A program of the user's own: these kinds do not run kftrain-trainer.
        for (auto it = values.begin(); it != values.end();) {
            it = it->first.rfind("trainer.", 0) == 0 ? values.erase(it) : std::next(it);
        }
        values["kind"] = kind_name(kind);
        values["image"] =
            fmt::format("registry.example/{}-train:latest", kind == JobKind::JAXJob  ? "jax"
                                                            : kind == JobKind::TFJob ? "tensorflow"
                                                                                     : "xgboost");
        values["command"] = "[python3, /app/train.py]";
    }
    return values;
}

bool has_active(const std::string& path, const std::map<std::string, std::string>& values) {
    auto it = values.lower_bound(path);
    return it != values.end() && (it->first == path || it->first.rfind(path + ".", 0) == 0);
}

class StarterWriter {
  public:
    StarterWriter(const std::string& name, JobKind kind)
        : m_values(starter_values(name, kind)), m_kind(kind) {
        if (kind == JobKind::TrainJob) {
            m_left_out = trainjob_unsupported_keys();
        } else if (kind == JobKind::PyTorchJob) {
            m_left_out = {"runtime"};
        } else {
            m_left_out = {"runtime", "elasticPolicy", "nprocPerNode", "trainer"};
        }
    }

    std::string write() {
        m_out = fmt::format(
            "# kftrain job file. 'kftrain render -f FILE' prints the {} it makes;\n"
            "# 'kftrain submit -f FILE' submits it. Only name is required; a commented key\n"
            "# shows its default. --set key=value overrides any key from the command line.\n",
            kind_name(m_kind));
        for (const auto& field : job_schema().children) {
            write_field(field, "", 0, false);
        }
        return m_out;
    }

  private:
    void line(int depth, bool commented, const std::string& text) {
        m_out += std::string(static_cast<size_t>(depth) * 2, ' ');
        m_out += commented ? "# " + text : text;
        m_out += "\n";
    }

    void write_field(const FieldDef& field, const std::string& parent, int depth, bool commented) {
        std::string path = parent.empty() ? field.name : parent + "." + field.name;
        bool active = !commented && has_active(path, m_values);
        const bool left_out =
            std::find(m_left_out.begin(), m_left_out.end(), path) != m_left_out.end();
        if (left_out && !(m_kind == JobKind::TrainJob && path == "nprocPerNode")) {
            return;
        }
        if (depth == 0) {
            m_out += "\n";
        }
        std::string doc = field.doc;
        if (!field.allowed.empty()) {
            doc += fmt::format(" ({})", fmt::join(field.allowed, ", "));
        }
        line(depth, true, doc);
        if (field.type == FieldType::Object) {
            line(depth, !active, field.name + ":");
            for (const auto& child : field.children) {
                write_field(child, path, depth + 1, !active);
            }
            return;
        }
        if (active) {
            line(depth, false, field.name + ": " + m_values.at(path));
            return;
        }
        std::string shown = field.default_text;
        line(depth, true, shown.empty() ? field.name + ":" : field.name + ": " + shown);
    }

    std::map<std::string, std::string> m_values;
    JobKind m_kind;
    std::vector<std::string> m_left_out;  // keys the kind cannot express: not offered
    std::string m_out;
};

void reference_rows(const FieldDef& field, const std::string& parent, std::string& out) {
    std::string path = parent.empty() ? field.name : parent + "." + field.name;
    if (field.type == FieldType::ObjectList) {
        path += "[]";
    }
    std::string doc = field.doc;
    if (!field.allowed.empty()) {
        doc += fmt::format(" ({})", fmt::join(field.allowed, ", "));
    }
    if (field.type != FieldType::Object) {
        std::string def = field.default_text.empty() ? (path == "name" ? "required" : "unset")
                                                     : "`" + field.default_text + "`";
        out += fmt::format("| `{}` | {} | {} | {} |\n", path, describe_type(field.type), def, doc);
    }
    for (const auto& child : field.children) {
        reference_rows(child, path, out);
    }
}

}  // namespace

std::string job_file_reference() {
    std::string out = "| key | type | default | meaning |\n|---|---|---|---|\n";
    for (const auto& field : job_schema().children) {
        reference_rows(field, "", out);
    }
    return out;
}

std::string starter_job_file(const std::string& name, JobKind kind) {
    return StarterWriter(name, kind).write();
}

}  // namespace kftrain::manifest
