#pragma once

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "cli/context.h"
#include "cli/view/output_format.h"
#include "util/result.h"

namespace kftrain::cli {

// Everything `kftrain version` takes.
struct VersionOptions {
    std::string output;                        // -o as typed: "" (text), json or yaml
    std::optional<view::OutputFormat> format;  // derived: -o parsed; none: text

    // Take nothing from the world: version reads no cluster (kubectl version --client's part).
    util::Status complete(const Context& ctx);
    // Parse -o.
    util::Status validate();
    // Print the version and the job kinds this kftrain renders; return 0.
    int run(Context& ctx) const;
};

// Return what version prints, as data (-o json|yaml), in kubectl version's shape:
// {"clientVersion": {"version", "platform"}, "kinds": [{"kind", "apiVersion", "supports"}]}.
nlohmann::ordered_json version_data();

// Register `kftrain version`.
void setup_version(CLI::App& app, Context& ctx);

}  // namespace kftrain::cli
