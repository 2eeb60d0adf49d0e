#include "manifest/render/render.h"

#include <fmt/format.h>

#include <algorithm>
#include <regex>

#include "manifest/framework.h"
#include "manifest/render/framework_fields.h"
#include "manifest/render/required_fields.h"
#include "manifest/render/template_values.h"
#include "manifest/render/trainjob_fields.h"
#include "manifest/suggest.h"
#include "manifest/yaml/input.h"

namespace kftrain::manifest {
namespace {

using util::error;
using Values = std::map<std::string, YAML::Node>;

const std::regex& placeholder_pattern() {
    static const std::regex k_pattern("\\{\\{\\s*([A-Za-z0-9_.-]*)\\s*\\}\\}");
    return k_pattern;
}

class Substituter {
  public:
    Substituter(const Values& values, const Template& tmpl) : m_values(values), m_tmpl(tmpl) {}

    // Replace the placeholders below node; returns false (and sets error) on failure.
    util::Status run(YAML::Node& root) {
        substitute(root);
        if (!m_error.empty()) {
            return error(m_error);
        }
        return util::ok_status();
    }

  private:
    // What a node becomes: itself, a value, or nothing (dropped).
    struct Outcome {
        bool drop = false;
        std::optional<YAML::Node> replacement;
    };

    void fail(const YAML::Node& at, const std::string& what) {
        if (m_error.empty()) {
            m_error = fmt::format("{}:{}: {}", m_tmpl.name, at.Mark().line + 1, what);
        }
    }

    Outcome substitute(YAML::Node& node) {
        if (node.IsMap()) {
            std::vector<std::pair<YAML::Node, Outcome>> changes;
            for (auto entry : node) {
                YAML::Node value = entry.second;
                Outcome outcome = substitute(value);
                if (outcome.drop || outcome.replacement) {
                    changes.emplace_back(entry.first, outcome);
                }
            }
            for (auto& [key, outcome] : changes) {
                if (outcome.drop) {
                    node.remove(key);
                } else {
                    node[key] = *outcome.replacement;
                }
            }
            return {};
        }
        if (node.IsSequence()) {
            YAML::Node rebuilt(YAML::NodeType::Sequence);
            bool changed = false;
            for (auto item : node) {
                Outcome outcome = substitute(item);
                changed = changed || outcome.drop || outcome.replacement;
                if (!outcome.drop) {
                    rebuilt.push_back(outcome.replacement ? *outcome.replacement : item);
                }
            }
            return changed ? Outcome{false, rebuilt} : Outcome{};
        }
        if (node.IsScalar()) {
            return substitute_scalar(node);
        }
        return {};
    }

    const YAML::Node* lookup(const YAML::Node& at, const std::string& name) {
        auto it = m_values.find(name);
        if (it == m_values.end()) {
            std::vector<std::string> names = placeholder_names();
            fail(at, fmt::format("unknown placeholder {{{{ {} }}}}{}", name,
                                 did_you_mean(name, names)));
            return nullptr;
        }
        return &it->second;
    }

    Outcome substitute_scalar(const YAML::Node& node) {
        const std::string& text = node.Scalar();
        std::smatch match;
        if (std::regex_match(text, match, placeholder_pattern())) {
            const YAML::Node* value = lookup(node, match[1]);
            if (value == nullptr || value->IsNull() || !value->IsDefined()) {
                return {true, std::nullopt};
            }
            return {false, YAML::Clone(*value)};
        }
        if (!std::regex_search(text, placeholder_pattern())) {
            return {};
        }
        // Placeholders inside a longer string: replaced as text, still one string.
        std::string out;
        auto begin = std::sregex_iterator(text.begin(), text.end(), placeholder_pattern());
        size_t last = 0;
        for (auto it = begin; it != std::sregex_iterator(); ++it) {
            out += text.substr(last, it->position() - last);
            const YAML::Node* value = lookup(node, (*it)[1]);
            if (value != nullptr && value->IsScalar()) {
                out += value->Scalar();
            } else if (value != nullptr && value->IsDefined() && !value->IsNull()) {
                fail(node, fmt::format("placeholder {} is not a single value and must stand alone",
                                       it->str()));
            }
            last = it->position() + it->length();
        }
        out += text.substr(last);
        YAML::Node replaced(out);
        replaced.SetTag("!");
        return {false, replaced};
    }

    const Values& m_values;
    const Template& m_tmpl;
    std::string m_error;
};

// A v1 job has only the replica types it has replicas of (one replica: only its Master; a
// TFJob: its roles'): a type left without replicas would default to one.
void drop_empty_types(const JobSpec& spec, YAML::Node& root) {
    // yaml-cpp: a missing key of a const map is an invalid node that throws on IsMap(), so each
    // step is tested with IsDefined() first.
    const YAML::Node& document = root;
    const YAML::Node job_spec = document["spec"];
    if (!is_operator_kind(spec.kind) || !job_spec.IsDefined() || !job_spec.IsMap()) {
        return;
    }
    const YAML::Node present = job_spec[operator_kind(spec.kind).replica_specs];
    if (!present.IsDefined() || !present.IsMap()) {
        return;
    }
    YAML::Node replica_specs = root["spec"][operator_kind(spec.kind).replica_specs];
    const auto types = replica_types(spec);
    for (const char* type : {"Master", "Chief", "Worker", "PS", "Evaluator"}) {
        const bool has = std::any_of(types.begin(), types.end(),
                                     [type](const auto& entry) { return entry.first == type; });
        if (!has) {
            replica_specs.remove(type);
        }
    }
}

}  // namespace

std::vector<std::string> placeholder_names() {
    JobSpec sample;
    std::vector<std::string> names;
    for (const auto& [name, value] : template_values(sample)) {
        names.push_back(name);
    }
    return names;
}

util::Result<YAML::Node> render_job(const JobSpec& spec, const Template& tmpl) {
    auto parsed = parse_yaml(tmpl.text, tmpl.name);
    if (!parsed) {
        return parsed.error_value();
    }
    YAML::Node root = *parsed;
    if (!root.IsMap()) {
        return error(fmt::format(
            "{}: a template must be a YAML map (a Kubeflow job such as a PyTorchJob)", tmpl.name));
    }
    const std::string template_kind = root["kind"].IsScalar() ? root["kind"].Scalar() : "";
    if (template_kind != kind_name(spec.kind)) {
        return error(fmt::format(
            "{}: the template makes a {} but the job's kind is {} (set kind in the job file, or "
            "--kind, to match the template)",
            tmpl.name, template_kind.empty() ? "document without a kind" : template_kind,
            kind_name(spec.kind)));
    }
    if (spec.kind == JobKind::TrainJob) {
        auto expressible = check_trainjob_fields(spec);
        if (!expressible) {
            return util::error(expressible.error());
        }
    }
    if (auto fits = check_framework_fields(spec); !fits) {
        return util::error(fits.error());
    }
    Values values = template_values(spec);
    auto done = Substituter(values, tmpl).run(root);
    if (!done) {
        return util::error(done.error());
    }
    drop_empty_types(spec, root);
    auto complete = check_required_fields(root, tmpl, spec);
    if (!complete) {
        return util::error(complete.error());
    }
    return root;
}

}  // namespace kftrain::manifest
