#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace kftrain::mcp {

// Names of the tools `kftrain mcp` offers.
namespace tool {
inline constexpr const char* k_render_job = "render_job";
inline constexpr const char* k_estimate_job = "estimate_job";
inline constexpr const char* k_submit_job = "submit_job";
inline constexpr const char* k_list_jobs = "list_jobs";
inline constexpr const char* k_get_job_status = "get_job_status";
inline constexpr const char* k_get_job_logs = "get_job_logs";
inline constexpr const char* k_wait_for_job = "wait_for_job";
inline constexpr const char* k_delete_job = "delete_job";
inline constexpr const char* k_tune_job = "tune_job";
inline constexpr const char* k_get_tune_status = "get_tune_status";
inline constexpr const char* k_diagnose_job = "diagnose_job";
inline constexpr const char* k_top_job = "top_job";
inline constexpr const char* k_check_cluster = "check_cluster";
}  // namespace tool

// One tool as tools/list describes it.
struct ToolDef {
    std::string name;
    std::string title;
    std::string description;
    nlohmann::json input_schema;
    nlohmann::json output_schema;
    bool read_only = true;     // changes nothing (readOnlyHint); only these stay under --read-only
    bool destructive = false;  // may delete what exists (destructiveHint)
    bool idempotent = false;   // a repeat with the same arguments does nothing more
    bool open_world = true;    // talks to the cluster (false when the server runs --local)

    // Return the tool as tools/list lists it, annotations included.
    nlohmann::json to_json() const;
};

// What decides the catalog.
struct CatalogOptions {
    bool read_only = false;  // list only the tools that change nothing
    bool local = false;      // the tools run on this machine: openWorldHint false
};

// Return the tools the server offers, in a fixed order.
std::vector<ToolDef> tool_catalog(const CatalogOptions& options);

// Return the tool named name in tools, or nullptr.
const ToolDef* find_tool(const std::vector<ToolDef>& tools, const std::string& name);

}  // namespace kftrain::mcp
