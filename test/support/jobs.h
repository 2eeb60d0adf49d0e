#pragma once

#include <yaml-cpp/yaml.h>

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "manifest/load.h"

namespace kftrain::test {

// Return the overrides of these --set values and, where given, of --kind.
manifest::Overrides set_flags(const std::vector<std::string>& sets,
                              std::optional<manifest::JobKind> kind = std::nullopt);

// Load a job from the text of a job file (job.yaml in messages) with these overrides.
util::Result<manifest::JobSpec> try_load_job(const std::string& text,
                                             const manifest::Overrides& overrides = {});

// Load a job as try_load_job does; the test fails, with the message, where it does not load.
manifest::JobSpec load_job(const std::string& text, const manifest::Overrides& overrides = {});

// Return the message loading the text fails with, or "(loaded)" where it loads.
std::string load_error(const std::string& text, const manifest::Overrides& overrides = {});

// Render a job with its kind's built-in template.
util::Result<YAML::Node> try_render_job(const manifest::JobSpec& spec);

// Render a job as try_render_job does; the test fails, with the message, where it does not.
YAML::Node render_yaml(const manifest::JobSpec& spec);

// Return render_yaml's manifest as JSON.
nlohmann::json render_json(const manifest::JobSpec& spec);

// The day save_measured_use's profiles say they were measured.
inline constexpr const char* k_measured_day = "2026-12-06";

// Save, under state_dir (what XDG_STATE_HOME names), the profile `estimate --measure` saves of
// spec's program measured on k_measured_day at 2 replicas: master-0 at a peak of peak_mib MiB
// and cores cores, worker-0 at 90% of that; on the cluster (with spec's image) or here.
// Return the profile's path.
std::string save_measured_use(const std::string& state_dir, const manifest::JobSpec& spec,
                              double peak_mib, bool cluster, double cores = 0.5);

}  // namespace kftrain::test
