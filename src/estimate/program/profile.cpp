#include "estimate/program/profile.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

#include "util/json_fields.h"
#include "util/json_text.h"
#include "util/stats.h"
#include "util/text.h"

namespace kftrain::estimate {
namespace {

using OrderedJson = nlohmann::ordered_json;

// Above this a program's samples/s is a wrong figure, not a speed.
constexpr double k_max_samples_per_sec = 1e12;

// Keep the reports that move the run on: in time order, each further than the one before.
std::vector<ProgressPoint> advancing(std::vector<ProgressPoint> points) {
    std::stable_sort(points.begin(), points.end(),
                     [](const ProgressPoint& a, const ProgressPoint& b) { return a.t < b.t; });
    std::vector<ProgressPoint> kept;
    for (const ProgressPoint& p : points) {
        if (!std::isfinite(p.t) || !std::isfinite(p.fraction) || p.fraction < 0 || p.fraction > 1) {
            continue;
        }
        if (kept.empty() || (p.fraction > kept.back().fraction && p.t > kept.back().t)) {
            kept.push_back(p);
        }
    }
    return kept;
}

// Return the resolution of advancing reports, as a fraction of the run: one step of the
// steps they count, 1% for whole percentages (Kubeflow's SDK posts those), else the least
// advance between two of them.
double report_resolution(const std::vector<ProgressPoint>& kept) {
    double least = 1;
    for (std::size_t i = 1; i < kept.size(); ++i) {
        least = std::min(least, kept[i].fraction - kept[i - 1].fraction);
    }
    const ProgressPoint& last = kept.back();
    if (last.basis == "steps" && last.steps_per_run && *last.steps_per_run > 0) {
        return 1.0 / static_cast<double>(*last.steps_per_run);
    }
    if (last.basis == "percent") {
        const bool whole = std::all_of(kept.begin(), kept.end(), [](const ProgressPoint& p) {
            return std::fabs(p.fraction * 100 - std::round(p.fraction * 100)) < 1e-6;
        });
        return whole ? 0.01 : std::min(least, 0.001);
    }
    return least;
}

// Return the standard deviation of the rates between reports over their mean: 0 with fewer
// than two intervals.
double rate_spread(const std::vector<ProgressPoint>& kept) {
    std::vector<double> rates;
    for (std::size_t i = 1; i < kept.size(); ++i) {
        rates.push_back((kept[i].fraction - kept[i - 1].fraction) / (kept[i].t - kept[i - 1].t));
    }
    if (rates.size() < 2) {
        return 0;
    }
    double mean = 0;
    for (double r : rates) {
        mean += r / static_cast<double>(rates.size());
    }
    double variance = 0;
    for (double r : rates) {
        variance += (r - mean) * (r - mean) / static_cast<double>(rates.size() - 1);
    }
    return mean > 0 ? std::sqrt(variance) / mean : 0;
}

OrderedJson optional_json(const std::optional<long long>& v) {
    return v ? OrderedJson(*v) : OrderedJson(nullptr);
}

OrderedJson optional_json(const std::optional<double>& v) {
    return v ? OrderedJson(*v) : OrderedJson(nullptr);
}

OrderedJson whole_bytes(const std::optional<double>& bytes) {
    return bytes ? OrderedJson(std::llround(*bytes)) : OrderedJson(nullptr);
}

OrderedJson size_json(const SizeMeasurement& s) {
    OrderedJson j;
    j["replicas"] = s.replicas;
    j["world_size"] = s.world_size;
    j["seconds"] = s.seconds;
    j["finished"] = s.finished;
    j["reports"] = s.reports;
    j["basis"] = s.basis;
    j["startup_s"] = s.startup_s;
    j["training_s"] = s.training_s;
    j["spread"] = s.spread;
    j["blocks"] = s.blocks.blocks;
    j["block_low"] = s.blocks.low;
    j["block_high"] = s.blocks.high;
    j["steps_per_run"] = optional_json(s.steps_per_run);
    j["steps_per_epoch"] = optional_json(s.steps_per_epoch);
    j["samples_per_sec"] = optional_json(s.samples_per_sec);
    j["too_few"] = s.too_few;
    if (s.waited_s) {
        j["waited_s"] = *s.waited_s;
    }
    j["use"] = OrderedJson::array();
    for (const ReplicaUse& use : s.use) {
        OrderedJson u;
        u["replica"] = use.replica;
        u["peak_memory_bytes"] = whole_bytes(use.peak_memory_bytes);
        u["cpu_cores"] = optional_json(use.cpu_cores);
        u["peak_device_memory_bytes"] = whole_bytes(use.peak_device_memory_bytes);
        u["memory_rising"] = use.memory_rising;
        u["readings"] = use.readings;
        j["use"].push_back(std::move(u));
    }
    return j;
}

// A replica's use; a wrong field throws util::JsonFieldError naming it.
ReplicaUse read_use(const util::JsonFields& r) {
    ReplicaUse use;
    use.replica = r.text("replica");
    use.peak_memory_bytes = r.number_or_null("peak_memory_bytes", 0);
    use.cpu_cores = r.number_or_null("cpu_cores", 0);
    use.peak_device_memory_bytes = r.number_or_null("peak_device_memory_bytes", 0);
    use.memory_rising = r.get<bool>("memory_rising", false);
    use.readings = static_cast<int>(r.has("readings") ? r.integer("readings", 0) : 0);
    return use;
}

OrderedJson where_json(const MeasuredWhere& w) {
    OrderedJson j;
    j["place"] = w.cluster ? "cluster" : "this machine";
    if (w.cluster) {
        j["context"] = w.context;
        j["namespace"] = w.namespace_;
        j["nodes"] = w.nodes;
        j["hardware"] = w.hardware;
        j["image"] = w.image;
    }
    return j;
}

// Where a profile was measured; none in a profile of an older kftrain (this machine).
MeasuredWhere read_where(const util::JsonFields& r) {
    MeasuredWhere w;
    if (!r.has("where")) {
        return w;
    }
    const util::JsonFields o = r.object("where");
    const std::string place = o.text("place");
    o.check(place == "cluster" || place == "this machine", "place",
            "\"cluster\" or \"this machine\"");
    w.cluster = place == "cluster";
    if (w.cluster) {
        w.context = o.get<std::string>("context", "");
        w.namespace_ = o.get<std::string>("namespace", "");
        w.nodes = o.has("nodes") ? o.list("nodes") : std::vector<std::string>{};
        w.hardware = o.get<std::string>("hardware", "");
        w.image = o.get<std::string>("image", "");
    }
    return w;
}

// A size's fields; a wrong one throws util::JsonFieldError naming it.
SizeMeasurement read_size(const util::JsonFields& r) {
    SizeMeasurement s;
    s.replicas = static_cast<int>(r.integer("replicas", 1));
    s.world_size = static_cast<int>(r.integer("world_size", 1));
    s.seconds = r.number("seconds", 0);
    s.reports = static_cast<int>(r.integer("reports", 2));
    s.basis = r.text("basis");
    s.startup_s = r.number("startup_s", 0);
    s.training_s = r.number("training_s", 0, true);
    s.spread = r.number("spread", 0);
    // None in a profile of an older kftrain: no range.
    s.blocks.blocks = static_cast<int>(r.has("blocks") ? r.integer("blocks", 0) : 0);
    s.blocks.low = r.has("block_low") ? r.number("block_low", 0, false, 1) : 1.0;
    s.blocks.high = r.has("block_high") ? r.number("block_high", 1) : 1.0;
    for (auto [key, count] : {std::pair{"steps_per_run", &s.steps_per_run},
                              std::pair{"steps_per_epoch", &s.steps_per_epoch}}) {
        if (r.has(key) && !r.doc().at(key).is_null()) {
            *count = r.integer(key, 1);
        }
    }
    s.samples_per_sec = r.number_or_null("samples_per_sec", 0);
    s.finished = r.get<bool>("finished", false, true);
    s.too_few = r.get<std::string>("too_few", "");  // none in a profile of an older kftrain
    if (r.has("waited_s")) {
        s.waited_s = r.number("waited_s", 0);
    }
    if (r.has("use")) {  // none in a profile of an older kftrain
        for (const util::JsonFields& use : r.objects("use")) {
            s.use.push_back(read_use(use));
        }
    }
    return s;
}

}  // namespace

std::vector<double> block_times(const std::vector<ProgressPoint>& points) {
    const std::vector<ProgressPoint> kept = advancing(points);
    std::vector<double> times;
    if (kept.size() < 2) {
        return times;
    }
    const double least = k_block_resolutions * report_resolution(kept);
    std::size_t start = 0;
    for (std::size_t i = 1; i < kept.size(); ++i) {
        const double advance = kept[i].fraction - kept[start].fraction;
        if (advance >= least * (1 - 1e-9)) {
            times.push_back((kept[i].t - kept[start].t) / advance);
            start = i;
        }
    }
    return times;
}

std::string report_shortage(const std::vector<ProgressPoint>& points) {
    const std::vector<ProgressPoint> kept = advancing(points);
    if (kept.size() < 2) {
        return fmt::format("{} that advanced; {} are needed",
                           util::counted(static_cast<long long>(kept.size()), "report"),
                           k_min_reports);
    }
    const double span = kept.back().fraction - kept.front().fraction;
    const double resolution = report_resolution(kept);
    const double resolutions = span / resolution;
    if (static_cast<int>(kept.size()) >= k_min_reports && resolutions >= k_min_resolutions - 1e-9) {
        return "";
    }
    return fmt::format("{} over {:.0f} of their steps of {:.3g}%; {} over {} are needed",
                       util::counted(static_cast<long long>(kept.size()), "report"), resolutions,
                       resolution * 100, k_min_reports, k_min_resolutions);
}

util::Result<SizeMeasurement> measure_size(const std::vector<ProgressPoint>& points, int replicas,
                                           int world_size, double seconds, bool finished) {
    const std::vector<ProgressPoint> kept = advancing(points);
    if (kept.empty()) {
        return util::error(
            "it reported no progress: kftrain reads a tqdm bar, Keras's or the Hugging Face "
            "Trainer's output, plain lines such as \"step 3/10\" or \"epoch 2/5\" (seen rising), "
            "progress lines (one JSON object per line with \"event\": \"progress\") and a "
            "posted trainerStatus; print one of those (docs/progress.md)");
    }
    if (kept.size() < 2) {
        return util::error(fmt::format(
            "it reported progress only once in {:.0f}s, which gives no rate: measure longer "
            "(--measure-seconds) or report more often",
            seconds));
    }
    const ProgressPoint& first = kept.front();
    const ProgressPoint& last = kept.back();
    const double rate = (last.fraction - first.fraction) / (last.t - first.t);
    if (!std::isfinite(rate) || rate <= 0 || !std::isfinite(1 / rate)) {
        return util::error(
            fmt::format("its progress reports give no usable rate ({:.3g}% of the run in {:.3g}s)",
                        (last.fraction - first.fraction) * 100, last.t - first.t));
    }
    SizeMeasurement s;
    s.replicas = replicas;
    s.world_size = world_size;
    s.seconds = seconds;
    s.finished = finished;
    s.reports = static_cast<int>(kept.size());
    s.basis = last.basis;
    s.training_s = 1 / rate;
    s.startup_s = std::max(0.0, std::min(first.t - first.fraction / rate, first.t));
    if (finished && seconds > s.training_s) {
        s.startup_s = seconds - s.training_s;  // the whole run is known: all but its training
    }
    s.spread = rate_spread(kept);
    s.blocks = block_spread(block_times(kept), s.training_s);
    s.too_few = report_shortage(kept);
    std::vector<double> speeds;
    for (const ProgressPoint& p : kept) {
        if (p.steps_per_run) {
            s.steps_per_run = p.steps_per_run;
        }
        if (p.steps_per_epoch) {
            s.steps_per_epoch = p.steps_per_epoch;
        }
        if (p.samples_per_sec && *p.samples_per_sec > 0 &&
            *p.samples_per_sec <= k_max_samples_per_sec) {
            speeds.push_back(*p.samples_per_sec);
        }
    }
    if (!speeds.empty()) {
        s.samples_per_sec = util::median(speeds);
    }
    return s;
}

std::string program_profile_json(const ProgramProfile& p) {
    OrderedJson j;
    j["measured_from"] = k_program_profile_mark;
    j["job"] = p.job;
    j["program"] = p.program;
    j["kind"] = p.kind;
    j["fingerprint"] = p.fingerprint;
    if (!p.program_id.empty()) {
        j["program_id"] = p.program_id;
    }
    j["measured_at"] = p.measured_at;
    j["seconds_limit"] = p.seconds_limit;
    j["procs_per_replica"] = p.procs_per_replica;
    j["host_cpus"] = p.host_cpus;
    j["where"] = where_json(p.where);
    j["sizes"] = OrderedJson::array();
    for (const SizeMeasurement& s : p.sizes) {
        j["sizes"].push_back(size_json(s));
    }
    return util::json_text(j, 2) + "\n";
}

std::string measured_where_text(const ProgramProfile& p) {
    const MeasuredWhere& w = p.where;
    if (!w.cluster) {
        return p.host_cpus > 0 ? fmt::format("on this machine ({} CPUs)", p.host_cpus)
                               : "on this machine";
    }
    std::vector<std::string> parts;
    if (!w.context.empty()) {
        parts.push_back("context " + w.context);
    }
    if (!w.namespace_.empty()) {
        parts.push_back("namespace " + w.namespace_);
    }
    if (!w.nodes.empty()) {
        std::string nodes =
            fmt::format("{} {}", w.nodes.size() == 1 ? "node" : "nodes", fmt::join(w.nodes, ", "));
        parts.push_back(w.hardware.empty() ? nodes : nodes + ": " + w.hardware);
    }
    if (!w.image.empty()) {
        parts.push_back("image " + w.image);
    }
    return parts.empty() ? "on the cluster"
                         : fmt::format("on the cluster ({})", fmt::join(parts, ", "));
}

bool is_program_profile(const std::string& text) {
    const auto j = util::parse_untrusted_json(text);
    return j.is_object() && j.contains("measured_from") &&
           j["measured_from"] == k_program_profile_mark;
}

util::Result<ProgramProfile> parse_program_profile(const std::string& text,
                                                   const std::string& source) {
    const auto j = util::parse_untrusted_json(text);
    if (!j.is_object()) {
        return util::error(fmt::format(
            "{}: not a profile (a JSON object written by `kftrain estimate --measure`)", source));
    }
    const util::JsonFields r(j, "");
    ProgramProfile p;
    try {
        p.job = r.text("job");
        p.program = r.text("program");
        p.kind = r.text("kind");
        p.fingerprint = r.text("fingerprint");
        p.program_id = r.get<std::string>("program_id", "");  // none from an older kftrain
        p.measured_at = r.text("measured_at");
        p.seconds_limit = r.number("seconds_limit", 0, true);
        p.procs_per_replica = static_cast<int>(r.integer("procs_per_replica", 1));
        p.host_cpus = static_cast<int>(r.integer("host_cpus", 0));
        p.where = read_where(r);
        const std::vector<util::JsonFields> sizes = r.objects("sizes");
        r.check(!sizes.empty(), "sizes", "a list of at least one size");
        for (const util::JsonFields& size_fields : sizes) {
            const SizeMeasurement size = read_size(size_fields);
            const bool repeated = std::any_of(
                p.sizes.begin(), p.sizes.end(),
                [&](const SizeMeasurement& s) { return s.world_size == size.world_size; });
            if (repeated) {
                throw util::JsonFieldError{fmt::format("field '{}' is {}, measured twice",
                                                       size_fields.at("world_size"),
                                                       size.world_size)};
            }
            p.sizes.push_back(size);
        }
    } catch (const util::JsonFieldError& e) {
        return util::error(fmt::format("{}: {}", source, e.message));
    }
    std::sort(p.sizes.begin(), p.sizes.end(),
              [](const SizeMeasurement& a, const SizeMeasurement& b) {
                  return a.world_size < b.world_size;
              });
    p.source = source;
    return p;
}

}  // namespace kftrain::estimate
