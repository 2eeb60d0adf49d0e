#include "cli/job_flags.h"

#include <fmt/format.h>

#include "manifest/retries.h"

namespace kftrain::cli {

void add_job_file_flags(CLI::App& sub, load::JobInput& input) {
    auto* file =
        sub.add_option("-f,--file", input.file,
                       "Job file (YAML), or - to read it from standard input; see 'kftrain init'");
    auto* text = sub.add_option("--job-yaml", input.job_yaml,
                                "The job file's text itself, instead of -f (a pipeline step "
                                "passes it so)");
    file->excludes(text);
    sub.add_option("--code", input.code,
                   "Ship this folder with the job: every replica finds its files at "
                   "code.mountPath (/workspace), its working directory; overrides code.path "
                   "(docs/code.md)")
        ->type_name("DIR");
    sub.add_option("--code-root", input.code_root,
                   "Refuse a code folder outside DIR, and take a relative one from it (what "
                   "kftrain mcp --root passes)")
        ->type_name("DIR")
        ->group("");
    sub.add_option("--set", input.sets,
                   "Override a job-file key, typed as the key: --set replicas=8 "
                   "--set trainer.epochs=5 (repeatable; overrides the job file); "
                   "--set trialParameters.NAME=VALUE fills the job file's "
                   "${trialParameters.NAME} for render and submit");
}

void add_job_input_flags(CLI::App& sub, load::JobInput& input) {
    add_job_file_flags(sub, input);
    sub.add_option("--kind", input.kind,
                   "What to render: PyTorchJob, TFJob, XGBoostJob, JAXJob (Training Operator "
                   "v1) or TrainJob (Kubeflow Trainer v2); overrides the job file's kind");
    sub.add_option("--template", input.template_file,
                   "Template to render into, of the job's kind (default: the built-in "
                   "templates/<kind>.yaml)");
}

void add_queue_flags(CLI::App& sub, load::JobInput& input) {
    sub.add_option("--queue", input.queue,
                   "Kueue LocalQueue to wait in: the job is created suspended and labelled "
                   "kueue.x-k8s.io/queue-name, and Kueue starts it when the queue admits it; "
                   "overrides queue")
        ->type_name("NAME");
    sub.add_option("--priority-class", input.priority_class,
                   "Kueue WorkloadPriorityClass of the queued job (needs --queue or queue); "
                   "overrides priorityClass")
        ->type_name("NAME");
}

void add_retries_flag(CLI::App& sub, load::JobInput& input, bool run_default) {
    sub.add_option("--retries", input.retries,
                   run_default
                       ? fmt::format("Times the job starts again after a failure before it "
                                     "fails (runPolicy.backoffLimit N+1; a TrainJob's "
                                     "failurePolicy.maxRestarts N); 0: the first failure fails "
                                     "it (default: {})",
                                     manifest::k_default_retries)
                       : "Times the job starts again after a failure before it fails "
                         "(runPolicy.backoffLimit N+1; a TrainJob's failurePolicy.maxRestarts "
                         "N); 0: the first failure fails it; overrides runPolicy.backoffLimit")
        ->type_name("N");
}

void add_env_from_shell_flag(CLI::App& sub, std::vector<std::string>& names) {
    sub.add_option("--env-from-shell", names,
                   "Local: pass this variable of your shell to every replica (repeat or "
                   "comma-separate), e.g. one the job takes from a Secret on the cluster; "
                   "replicas get no other shell variable than PATH, HOME, USER, LANG, LC_*, TZ, "
                   "TMPDIR and a few the trainer reads")
        ->delimiter(',')
        ->type_name("NAME");
}

void add_cost_guard_flags(CLI::App& sub, cost::CostGuard& guard) {
    sub.add_option("--max-cost", guard.max_cost,
                   "Refuse (exit 2) when the estimated cost of the job at its replicas is more "
                   "than this many dollars; see 'kftrain estimate'");
    sub.add_option("--profile", guard.profile,
                   "With --max-cost: profile measured by kftrain-trainer --benchmark or by "
                   "kftrain estimate --measure (default: the one --measure saved for the job, "
                   "else for kftrain-trainer a built-in one)");
    sub.add_option("--gpu", guard.gpu,
                   "With --max-cost: GPU type to price the job's GPUs (a100, h100, l4, t4, v100)");
    sub.add_option("--prices", guard.prices,
                   "With --max-cost: price catalog (default: $KFTRAIN_PRICES, else built-in)");
}

}  // namespace kftrain::cli
