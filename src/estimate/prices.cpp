#include "estimate/prices.h"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <vector>

#include "estimate/units.h"
#include "manifest/suggest.h"
#include "manifest/yaml/input.h"

namespace kftrain::estimate {
namespace {

// Reads one mapping of the catalog, naming file, line and dotted key in its errors.
class MapReader {
  public:
    MapReader(const YAML::Node& node, std::string file, std::string path)
        : m_node(node), m_file(std::move(file)), m_path(std::move(path)) {}

    // Fail on keys not in allowed, suggesting the nearest one.
    util::Status only(const std::vector<std::string>& allowed) const {
        for (const auto& kv : m_node) {
            const auto key = kv.first.as<std::string>();
            if (std::find(allowed.begin(), allowed.end(), key) == allowed.end()) {
                return util::error(fmt::format("{}: unknown key{}", where(kv.first, key),
                                               manifest::did_you_mean(key, allowed)));
            }
        }
        return util::ok_status();
    }

    // Return whether key is present.
    bool has(const std::string& key) const { return static_cast<bool>(m_node[key]); }

    // Read a string, or "" when absent.
    util::Result<std::string> text(const std::string& key) const {
        const YAML::Node v = m_node[key];
        if (!v) {
            return std::string();
        }
        if (!v.IsScalar()) {
            return util::error(fmt::format("{}: must be a string", where(v, key)));
        }
        return v.Scalar();
    }

    // Read a number >= 0 (> 0 when positive).
    util::Result<double> number(const std::string& key, bool positive) const {
        const YAML::Node v = m_node[key];
        if (!v) {
            return util::error(fmt::format("{}: missing", where(m_node, key)));
        }
        const std::string got = v.IsScalar() ? v.Scalar() : std::string("a ") + kind(v);
        const auto value = v.IsScalar() ? parse_money(v.Scalar()) : std::nullopt;
        if (!value || (positive && *value <= 0)) {
            return util::error(fmt::format("{}: must be a number {} 0 (got {})", where(v, key),
                                           positive ? ">" : ">=", got));
        }
        return *value;
    }

    // Read a positive whole number.
    util::Result<int> count(const std::string& key) const {
        auto value = number(key, true);
        if (value.ok() && (*value != static_cast<int>(*value) || *value > 1024)) {
            return util::error(fmt::format("{}: must be a whole number between 1 and 1024 (got {})",
                                           where(m_node[key], key), m_node[key].Scalar()));
        }
        return value.ok() ? util::Result<int>(static_cast<int>(*value))
                          : util::Result<int>(util::error(value.error()));
    }

    // Read an optional bandwidth such as "100Gbps".
    util::Result<std::optional<double>> bandwidth(const std::string& key) const {
        const YAML::Node v = m_node[key];
        if (!v) {
            return std::optional<double>();
        }
        const auto value = v.IsScalar() ? parse_bandwidth(v.Scalar()) : std::nullopt;
        if (!value) {
            return util::error(
                fmt::format("{}: must be a bandwidth such as 100Gbps or 600GB/s (got {})",
                            where(v, key), v.IsScalar() ? v.Scalar() : kind(v)));
        }
        return value;
    }

    // Return "file:line: path.key" for a node.
    std::string where(const YAML::Node& at, const std::string& key) const {
        return fmt::format("{}:{}: {}{}", m_file, at.Mark().line + 1,
                           m_path.empty() ? "" : m_path + ".", key);
    }

    static std::string kind(const YAML::Node& v) {
        return v.IsMap() ? "mapping" : v.IsSequence() ? "list" : v.IsNull() ? "null" : "scalar";
    }

  private:
    const YAML::Node& m_node;
    std::string m_file;
    std::string m_path;
};

// Return early with the error of a Result or Status.
#define PRICES_TRY(var, expr)            \
    auto var = (expr);                   \
    if (!var.ok()) {                     \
        return util::error(var.error()); \
    }

util::Result<GpuPrice> parse_gpu(const YAML::Node& node, const std::string& file,
                                 const std::string& path) {
    if (!node.IsMap()) {
        return util::error(
            fmt::format("{}:{}: {}: must be a mapping with perGpu or perNode "
                        "and gpusPerNode (got {})",
                        file, node.Mark().line + 1, path, MapReader::kind(node)));
    }
    MapReader r(node, file, path);
    PRICES_TRY(keys, r.only({"node", "perGpu", "perNode", "gpusPerNode", "intraNodeBandwidth",
                             "network"}));
    if (r.has("perGpu") == r.has("perNode")) {
        return util::error(fmt::format("{}:{}: {}: give exactly one of perGpu and perNode", file,
                                       node.Mark().line + 1, path));
    }
    GpuPrice g;
    PRICES_TRY(name, r.text("node"));
    PRICES_TRY(per_node, r.has("perGpu") ? r.number("perGpu", false) : r.number("perNode", false));
    PRICES_TRY(gpus, r.count("gpusPerNode"));
    PRICES_TRY(intra, r.bandwidth("intraNodeBandwidth"));
    PRICES_TRY(network, r.bandwidth("network"));
    g.node = *name;
    g.gpus_per_node = *gpus;
    g.per_gpu_hour = r.has("perGpu") ? *per_node : *per_node / *gpus;
    g.intra_node_bytes_per_s = *intra;
    g.network_bytes_per_s = *network;
    return g;
}

util::Result<CpuPrice> parse_cpu(const YAML::Node& node, const std::string& file) {
    if (!node.IsMap()) {
        return util::error(
            fmt::format("{}:{}: cpu: must be a mapping with perCoreHour and "
                        "perGiBHour (got {})",
                        file, node.Mark().line + 1, MapReader::kind(node)));
    }
    MapReader r(node, file, "cpu");
    PRICES_TRY(keys, r.only({"node", "perCoreHour", "perGiBHour", "network"}));
    PRICES_TRY(name, r.text("node"));
    PRICES_TRY(core, r.number("perCoreHour", false));
    PRICES_TRY(gib, r.number("perGiBHour", false));
    PRICES_TRY(network, r.bandwidth("network"));
    return CpuPrice{*name, *core, *gib, *network};
}

util::Result<PriceCatalog> parse_catalog(const YAML::Node& root, const std::string& file) {
    if (!root.IsMap()) {
        return util::error(fmt::format("{}: must be a mapping with gpus and/or cpu (got {})", file,
                                       MapReader::kind(root)));
    }
    MapReader r(root, file, "");
    PRICES_TRY(keys, r.only({"source", "currency", "gpus", "cpu"}));
    PriceCatalog c;
    c.file = file;
    PRICES_TRY(source, r.text("source"));
    PRICES_TRY(currency, r.text("currency"));
    c.source = *source;
    c.currency = currency->empty() ? "USD" : *currency;
    if (const YAML::Node gpus = root["gpus"]; gpus && !gpus.IsNull()) {
        if (!gpus.IsMap()) {
            return util::error(fmt::format("{}: must be a mapping of GPU types (got {})",
                                           r.where(gpus, "gpus"), MapReader::kind(gpus)));
        }
        for (const auto& kv : gpus) {
            const auto name = kv.first.as<std::string>();
            PRICES_TRY(gpu, parse_gpu(kv.second, file, "gpus." + name));
            c.gpus[name] = *gpu;
        }
    }
    if (const YAML::Node cpu = root["cpu"]; cpu) {
        PRICES_TRY(parsed, parse_cpu(cpu, file));
        c.cpu = *parsed;
    }
    if (c.gpus.empty() && !c.cpu) {
        return util::error(fmt::format("{}: has no prices: give gpus and/or cpu", file));
    }
    return c;
}

#undef PRICES_TRY

}  // namespace

util::Result<PriceCatalog> parse_prices(const std::string& yaml, const std::string& file) {
    auto parsed = manifest::parse_yaml(yaml, file);
    if (!parsed) {
        return parsed.error_value();
    }
    const YAML::Node root = *parsed;
    try {
        return parse_catalog(root, file);
    } catch (const YAML::Exception& e) {
        return util::error(fmt::format("{}:{}: {}", file, e.mark.line + 1, e.msg));
    }
}

std::string gpu_type_names(const PriceCatalog& prices) {
    std::vector<std::string> names;
    for (const auto& [name, price] : prices.gpus) {
        names.push_back(name);
    }
    return fmt::format("{}", fmt::join(names, ", "));
}

util::Result<GpuPrice> find_gpu_type(const PriceCatalog& prices, const std::string& gpu) {
    const auto it = prices.gpus.find(gpu);
    if (it == prices.gpus.end()) {
        return util::error(fmt::format("--gpu: {} has no such GPU type (one of {}) (got {})",
                                       prices.file, gpu_type_names(prices), gpu));
    }
    return it->second;
}

}  // namespace kftrain::estimate
