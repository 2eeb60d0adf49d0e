#include "trainer/metrics/exposition.h"

#include <fmt/format.h>

#include <cmath>
#include <optional>

namespace kftrain::trainer::metrics {
namespace {

// Format a sample value as Prometheus reads it: shortest round-trip, NaN, +Inf, -Inf.
std::string number(double value) {
    if (std::isnan(value)) {
        return "NaN";
    }
    if (std::isinf(value)) {
        return value > 0 ? "+Inf" : "-Inf";
    }
    return fmt::format("{}", value);
}

class Writer {
  public:
    explicit Writer(const Labels& labels) {
        if (!labels.job.empty()) {
            m_labels = fmt::format("job=\"{}\",", escape_label(labels.job));
        }
        m_labels += fmt::format("rank=\"{}\"", escape_label(labels.rank));
    }

    void header(const FamilyInfo& family) {
        m_text += fmt::format("# HELP {} {}\n# TYPE {} {}\n", family.name, family.help, family.name,
                              family.type);
    }
    void sample(const std::string& name, double value, const std::string& extra = "") {
        m_text += fmt::format("{}{{{}{}}} {}\n", name, m_labels, extra, number(value));
    }
    void scalar(const FamilyInfo& family, std::optional<double> value) {
        if (value) {
            header(family);
            sample(family.name, *value);
        }
    }
    void histogram(const FamilyInfo& family, const Histogram& h) {
        header(family);
        const std::string name = family.name;
        uint64_t cumulative = 0;
        for (std::size_t i = 0; i < h.bounds.size(); ++i) {
            cumulative += h.counts[i];
            sample(name + "_bucket", static_cast<double>(cumulative),
                   fmt::format(",le=\"{}\"", number(h.bounds[i])));
        }
        sample(name + "_bucket", static_cast<double>(h.count), ",le=\"+Inf\"");
        sample(name + "_sum", h.sum);
        sample(name + "_count", static_cast<double>(h.count));
    }
    std::string take() { return std::move(m_text); }

  private:
    std::string m_labels;
    std::string m_text;
};

enum Family {
    samples,
    steps,
    loss,
    accuracy,
    learning_rate,
    epoch,
    progress,
    eta,
    eval_loss,
    eval_accuracy,
    world_size,
    step_seconds,
    allreduce_seconds,
    checkpoint_seconds,
};

}  // namespace

const std::vector<FamilyInfo>& families() {
    static const std::vector<FamilyInfo> all = {
        {"kftrain_samples_total", "counter", "Training samples this rank has trained."},
        {"kftrain_steps_total", "counter", "Training steps this rank has run."},
        {"kftrain_loss", "gauge", "Training loss of the last progress interval, over all ranks."},
        {"kftrain_accuracy", "gauge",
         "Training accuracy of the last progress interval, over all ranks."},
        {"kftrain_learning_rate", "gauge", "Learning rate of the last step."},
        {"kftrain_epoch", "gauge",
         "Epochs trained, fractional: 2.5 is half way through the third."},
        {"kftrain_progress_ratio", "gauge", "Steps trained over steps planned (0 to 1)."},
        {"kftrain_eta_seconds", "gauge", "Seconds the steps left should take at the pace so far."},
        {"kftrain_eval_loss", "gauge", "Loss of the last held-out evaluation."},
        {"kftrain_eval_accuracy", "gauge", "Accuracy of the last held-out evaluation."},
        {"kftrain_world_size", "gauge", "Processes training together."},
        {"kftrain_step_seconds", "histogram",
         "Seconds of one training step on this rank, by the host's clock."},
        {"kftrain_allreduce_seconds", "histogram",
         "Seconds a step waited for the gradients' all-reduce on this rank."},
        {"kftrain_checkpoint_seconds", "histogram", "Seconds to write one checkpoint."},
    };
    return all;
}

std::string escape_label(const std::string& value) {
    std::string out;
    out.reserve(value.size());
    for (char c : value) {
        if (c == '\\') {
            out += "\\\\";
        } else if (c == '"') {
            out += "\\\"";
        } else if (c == '\n') {
            out += "\\n";
        } else {
            out += c;
        }
    }
    return out;
}

std::string render_exposition(const Snapshot& values, const Labels& labels) {
    const auto& f = families();
    Writer w(labels);
    w.scalar(f[samples], values.samples);
    w.scalar(f[steps], values.steps);
    w.scalar(f[loss], values.loss);
    w.scalar(f[accuracy], values.accuracy);
    w.scalar(f[learning_rate], values.lr);
    w.scalar(f[epoch], values.epoch);
    w.scalar(f[progress], values.progress);
    w.scalar(f[eta], values.eta_s);
    w.scalar(f[eval_loss], values.eval_loss);
    w.scalar(f[eval_accuracy], values.eval_accuracy);
    w.scalar(f[world_size], static_cast<double>(values.world_size));
    w.histogram(f[step_seconds], values.step_s);
    w.histogram(f[allreduce_seconds], values.allreduce_s);
    if (values.checkpoint_s.count > 0) {
        w.histogram(f[checkpoint_seconds], values.checkpoint_s);
    }
    return w.take();
}

}  // namespace kftrain::trainer::metrics
