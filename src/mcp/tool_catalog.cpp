#include "mcp/tool_catalog.h"

namespace kftrain::mcp {
namespace {

using json = nlohmann::json;

json text(const char* description) {
    return {{"type", "string"}, {"description", description}};
}

json integer(const char* description, int minimum, int maximum) {
    return {{"type", "integer"},
            {"description", description},
            {"minimum", minimum},
            {"maximum", maximum}};
}

json flag(const char* description, bool default_value) {
    return {{"type", "boolean"}, {"description", description}, {"default", default_value}};
}

json strings(const char* description) {
    return {{"type", "array"}, {"items", {{"type", "string"}}}, {"description", description}};
}

json object(json properties, std::vector<std::string> required = {}) {
    json schema = {{"type", "object"}, {"properties", std::move(properties)}};
    if (!required.empty()) {
        schema["required"] = required;
    }
    return schema;
}

// The arguments that name a job file: job_file or job_yaml (one of them), and --set overrides.
json job_properties() {
    return {
        {"job_file",
         text("Path of a kftrain job file, inside the server's root directory (relative paths "
              "from it). Give job_file or job_yaml.")},
        {"job_yaml", text("The job file's YAML itself. Give job_file or job_yaml.")},
        {"set", strings("Job-file keys to override, each KEY=VALUE as `kftrain --set` takes "
                        "them: replicas=4, trainer.epochs=5, resources.cpu=2")},
    };
}

json with(json base, const json& more) {
    base.update(more);
    return base;
}

json job_ref_properties() {
    return {{"name", text("Name of the job")},
            {"namespace", text("Namespace of the job (default: the server's)")}};
}

const json k_any_object = {{"type", "object"}};
const json k_nullable_number = {{"type", {"number", "null"}}};

ToolDef render_job() {
    return {tool::k_render_job,
            "Render a training job",
            "Render a kftrain job file into the Kubernetes manifest kftrain would apply: a "
            "PyTorchJob, TFJob, XGBoostJob or JAXJob (Training Operator v1) or a TrainJob "
            "(Kubeflow Trainer v2). Nothing is submitted. Use it to check a job file or see what "
            "a --set changes.",
            object(with(job_properties(),
                        {{"kind", text("PyTorchJob, TrainJob, TFJob, XGBoostJob or JAXJob "
                                       "(default: the job file's kind)")}})),
            object({{"kind", text("Kind of the manifest")},
                    {"name", text("Name of the job")},
                    {"namespace", text("Namespace of the job, empty when the cluster decides")},
                    {"manifest", k_any_object}},
                   {"kind", "name", "manifest"}),
            true,
            false,
            true,
            false};
}

ToolDef estimate_job() {
    json row = object({{"replicas", {{"type", "integer"}}},
                       {"total_seconds", {{"type", "number"}}},
                       {"speedup", {{"type", "number"}}},
                       {"efficiency", {{"type", "number"}}},
                       {"cost", k_nullable_number},
                       {"basis", text("measured, modelled or extrapolated")}},
                      {"replicas", "total_seconds", "speedup", "efficiency"});
    json assumption = object({{"name", {{"type", "string"}}},
                              {"value", {{"type", "string"}}},
                              {"source", {{"type", "string"}}}},
                             {"name", "value", "source"});
    return {tool::k_estimate_job,
            "Estimate time, speedup and cost",
            "Estimate how long a job takes and what it costs at several replica counts, with "
            "the assumptions and where each comes from. A job that runs its own program (not "
            "kftrain-trainer) needs measure: true once: it runs the job on this machine for a "
            "short while at 1 and 2 replicas, and saves the measured profile for later "
            "estimates and budget checks. measure needs confirm: true and a server started "
            "with --local. With on_cluster: true as well, a server for a cluster measures it "
            "there instead (short jobs <job>-measure-<R>, all deleted after), refused when it "
            "may cost more than the server's budget (--max-cost).",
            object(with(job_properties(),
                        {{"replicas",
                          {{"type", "array"},
                           {"items", {{"type", "integer"}, {"minimum", 1}}},
                           {"description",
                            "Replica counts to compare (default: "
                            "1, 2, 4, 8, 16 and the job's)"}}},
                         {"measure", flag("Run the job here briefly to measure it first "
                                          "(takes a minute or more)",
                                          false)},
                         {"on_cluster", flag("With measure: measure on the cluster the "
                                             "server submits to, not on this machine",
                                             false)},
                         {"confirm", flag("Must be true to measure", false)}})),
            object({{"job", text("Name of the job")},
                    {"currency", {{"type", "string"}}},
                    {"profile_source", text("built-in, or what the profile was measured from")},
                    {"rows", {{"type", "array"}, {"items", row}}},
                    {"fastest", {{"type", {"integer", "null"}}}},
                    {"cheapest", {{"type", {"integer", "null"}}}},
                    {"assumptions", {{"type", "array"}, {"items", assumption}}}},
                   {"job", "rows", "assumptions"}),
            true,
            false,
            true,
            false};
}

ToolDef submit_job() {
    return {tool::k_submit_job,
            "Submit a training job",
            "Submit a job file as a training job. By default a dry run: returns the manifest "
            "and the job's estimated cost, and submits nothing. To submit, call again with "
            "dry_run: false and confirm: true. When the server has a budget (--max-cost), a job "
            "whose estimated cost is over it, or that cannot be estimated, is refused.",
            object(with(job_properties(),
                        {{"dry_run", flag("Only show what would be submitted", true)},
                         {"confirm", flag("Must be true to submit for real", false)}})),
            object({{"dry_run", {{"type", "boolean"}}},
                    {"submitted", {{"type", "boolean"}}},
                    {"kind", {{"type", "string"}}},
                    {"name", {{"type", "string"}}},
                    {"namespace", {{"type", "string"}}},
                    {"manifest", k_any_object},
                    {"estimate", {{"type", {"object", "null"}}}},
                    {"budget", k_nullable_number},
                    {"message", {{"type", "string"}}}},
                   {"dry_run", "submitted", "kind", "name", "message"}),
            false,
            false,
            false,
            true};
}

ToolDef list_jobs() {
    return {tool::k_list_jobs,
            "List training jobs",
            "List the training jobs of a namespace with their state, replicas, progress and "
            "cost so far.",
            object({{"namespace", text("Namespace to list (default: the server's)")}}),
            object({{"items", {{"type", "array"}, {"items", k_any_object}}}}, {"items"}),
            true,
            false,
            true,
            true};
}

ToolDef get_job_status() {
    return {tool::k_get_job_status,
            "Get a job's status",
            "Show a job's state, the state of every replica with its reason and exit code, its "
            "conditions, its last progress (epoch, loss, ETA) and its cost so far.",
            object(job_ref_properties(), {"name"}),
            object({{"name", {{"type", "string"}}},
                    {"kind", {{"type", "string"}}},
                    {"state", {{"type", "string"}}},
                    {"replicas", {{"type", "array"}}}},
                   {"name", "state"}),
            true,
            false,
            true,
            true};
}

ToolDef top_job() {
    return {tool::k_top_job,
            "Show what a job's replicas use",
            "Show each replica's CPU (cores) and memory working set (bytes) in use against its "
            "request and limit, whether its memory is at 90% of the limit or more (oomRisk: "
            "the OOM killer's next), its node, restarts and GPUs; null where a figure could not "
            "be read, with warnings saying why.",
            object(job_ref_properties(), {"name"}),
            object({{"name", {{"type", "string"}}},
                    {"source", {{"type", "string"}}},
                    {"replicas", {{"type", "array"}, {"items", k_any_object}}},
                    {"warnings", {{"type", "array"}, {"items", {{"type", "string"}}}}}},
                   {"name", "replicas"}),
            true,
            false,
            true,
            true};
}

ToolDef get_job_logs() {
    return {tool::k_get_job_logs,
            "Read a job's logs",
            "Read the last lines of every replica's log, each line prefixed with its replica "
            "(master-0, worker-1, node-0) as `kftrain logs` prints them.",
            object(with(job_ref_properties(),
                        {{"replica", text("Only this replica or type: master, worker-2, node-1")},
                         {"tail_lines", integer("Lines per replica, from the end", 1, 2000)},
                         {"max_bytes", integer("Most bytes of text returned", 1, 1048576)}}),
                   {"name"}),
            object({{"name", {{"type", "string"}}},
                    {"text", {{"type", "string"}}},
                    {"lines", {{"type", "integer"}}},
                    {"truncated", {{"type", "boolean"}}}},
                   {"name", "text", "lines", "truncated"}),
            true,
            false,
            true,
            true};
}

ToolDef wait_for_job() {
    return {tool::k_wait_for_job,
            "Wait for a job",
            "Wait until a job succeeds, runs, or is admitted by its queue, sending a progress "
            "notification at each change, and return its final status. outcome says whether "
            "the condition was met, the job failed, or the wait timed out.",
            object(with(job_ref_properties(),
                        {{"for",
                          {{"type", "string"},
                           {"enum", {"succeeded", "running", "admitted"}},
                           {"default", "succeeded"}}},
                         {"timeout_seconds", integer("Give up after this long", 1, 3600)}}),
                   {"name"}),
            object({{"name", {{"type", "string"}}},
                    {"for", {{"type", "string"}}},
                    {"outcome", {{"type", "string"}, {"enum", {"met", "failed", "timed out"}}}},
                    {"status", k_any_object}},
                   {"name", "for", "outcome", "status"}),
            true,
            false,
            true,
            true};
}

ToolDef delete_job() {
    return {tool::k_delete_job,
            "Delete a job",
            "Delete a job and stop its replicas. Needs confirm: true.",
            object(with(job_ref_properties(), {{"confirm", flag("Must be true to delete", false)}}),
                   {"name"}),
            object({{"name", {{"type", "string"}}},
                    {"deleted", {{"type", "boolean"}}},
                    {"message", {{"type", "string"}}}},
                   {"name", "deleted", "message"}),
            false,
            true,
            true,
            true};
}

ToolDef tune_job() {
    return {tool::k_tune_job,
            "Search hyperparameters",
            "Search hyperparameters of a job: a Katib Experiment on the cluster, or trials on "
            "this machine. By default a dry run that returns the Experiment; to start the "
            "search call again with dry_run: false and confirm: true. On this machine the call "
            "returns when the search ends.",
            object(with(job_properties(),
                        {{"params", strings("Spaces to search, as --param takes them: "
                                            "lr=0.001:0.1:log, batch=32,64,128")},
                         {"objective", text("metric[:maximize|minimize], e.g. accuracy")},
                         {"max_trials", integer("Trials to run at most", 1, 10000)},
                         {"parallel", integer("Trials running at once", 1, 64)},
                         {"dry_run", flag("Only show the search", true)},
                         {"confirm", flag("Must be true to start the search", false)}})),
            object({{"dry_run", {{"type", "boolean"}}},
                    {"name", {{"type", "string"}}},
                    {"experiment", k_any_object},
                    {"search", k_any_object},
                    {"message", {{"type", "string"}}}},
                   {"dry_run", "message"}),
            false,
            false,
            false,
            true};
}

ToolDef get_tune_status() {
    return {tool::k_get_tune_status,
            "Get a search's status",
            "Show a hyperparameter search: its state, every trial with its parameters and "
            "objective, and the best trial so far.",
            object(job_ref_properties(), {"name"}),
            object({{"name", {{"type", "string"}}}, {"phase", {{"type", "string"}}}}, {"name"}),
            true,
            false,
            true,
            true};
}

ToolDef diagnose_job() {
    json end = object({{"replica", {{"type", "string"}}},
                       {"state", {{"type", "string"}}},
                       {"ended", {{"type", "string"}}},
                       {"cause", {{"type", "string"}}},
                       {"first", {{"type", "boolean"}}}},
                      {"replica", "cause"});
    return {tool::k_diagnose_job,
            "Diagnose a job",
            "Explain why a job failed, cannot start or is stuck: the first replica to fail on "
            "one time axis, its cause (out-of-memory, signal, exception, rendezvous-timeout, "
            "nccl-error, divergence, image-pull, unschedulable, crash-loop, evicted, "
            "preempted, deadline-exceeded, queue-waiting, stuck, ...), a hint, and the log "
            "lines that show it. Replicas that only lost their peer are named consequences.",
            object(with(job_ref_properties(),
                        {{"stuck_after_seconds",
                          integer("A running job without a progress report or log line for "
                                  "this long is stuck (default 600)",
                                  1, 86400)}}),
                   {"name"}),
            object({{"name", {{"type", "string"}}},
                    {"verdict", {{"type", "string"}}},
                    {"cause", {{"type", "string"}}},
                    {"why", {{"type", "string"}}},
                    {"hint", {{"type", "string"}}},
                    {"replica", {{"type", "string"}}},
                    {"timeline", {{"type", "array"}, {"items", end}}},
                    {"evidence", {{"type", "array"}}}},
                   {"name", "verdict", "cause", "why", "timeline", "evidence"}),
            true,
            false,
            true,
            true};
}

ToolDef check_cluster() {
    json check = object({{"group", {{"type", "string"}}},
                         {"name", {{"type", "string"}}},
                         {"state", {{"type", "string"}}},
                         {"found", {{"type", "string"}}},
                         {"fix", {{"type", "string"}}},
                         {"needed", {{"type", "boolean"}}}});
    return {tool::k_check_cluster,
            "Check that jobs can run here",
            "Check before a first submit what kftrain doctor checks: kubectl and the API server, "
            "the job kinds and Trainer runtimes served, Katib, Kueue, the nodes, the permissions "
            "kftrain needs in the namespace, and with a job file what its job needs: its "
            "runtime, queue, claims, secrets and a node it fits on. Read-only. passed is false "
            "when a needed check failed; each failed check says what fixes it.",
            object(with(job_properties(),
                        {{"namespace", text("Namespace to check (default: the job's, else the "
                                            "server's)")}})),
            object({{"passed", {{"type", "boolean"}}},
                    {"verdict", {{"type", "string"}}},
                    {"checks", {{"type", "array"}, {"items", check}}}},
                   {"passed", "verdict", "checks"}),
            true,
            false,
            true,
            true};
}

}  // namespace

json ToolDef::to_json() const {
    return {{"name", name},
            {"title", title},
            {"description", description},
            {"inputSchema", input_schema},
            {"outputSchema", output_schema},
            {"annotations",
             {{"title", title},
              {"readOnlyHint", read_only},
              {"destructiveHint", destructive},
              {"idempotentHint", idempotent},
              {"openWorldHint", open_world}}}};
}

std::vector<ToolDef> tool_catalog(const CatalogOptions& options) {
    std::vector<ToolDef> all = {render_job(),     estimate_job(),    submit_job(),   list_jobs(),
                                get_job_status(), get_job_logs(),    wait_for_job(), delete_job(),
                                tune_job(),       get_tune_status(), diagnose_job(), top_job(),
                                check_cluster()};
    std::vector<ToolDef> offered;
    for (ToolDef& def : all) {
        if (options.read_only && !def.read_only) {
            continue;
        }
        if (options.local) {
            def.open_world = false;
        }
        offered.push_back(std::move(def));
    }
    return offered;
}

const ToolDef* find_tool(const std::vector<ToolDef>& tools, const std::string& name) {
    for (const ToolDef& def : tools) {
        if (def.name == name) {
            return &def;
        }
    }
    return nullptr;
}

}  // namespace kftrain::mcp
