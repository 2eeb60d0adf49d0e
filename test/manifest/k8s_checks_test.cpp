#include <catch2/catch.hpp>

#include "manifest/credentials.h"
#include "manifest/load.h"
#include "support/jobs.h"

using kftrain::manifest::load_job_text;
using kftrain::manifest::Overrides;
using kftrain::test::load_error;

namespace {

const std::string k_bad_label_prefix =
    "the key must be a qualified name: the prefix before '/' must be a DNS-1123 subdomain: at "
    "most 253 lower-case letters, digits, '-' and '.', starting and ending with a letter or "
    "digit";
const std::string k_subdomain =
    "a DNS-1123 subdomain: at most 253 lower-case letters, digits, '-' and '.', starting and "
    "ending with a letter or digit";

}  // namespace

TEST_CASE("job files Kubernetes would reject fail to load, naming key, value and rule",
          "[manifest]") {
    struct Case {
        const char* what;
        std::string text;
        std::string message;
    };
    const std::vector<Case> cases = {
        {"label key with a bad prefix", "name: a\nlabels:\n  -bad/key: x\n",
         "job.yaml:3: labels.\"-bad/key\": " + k_bad_label_prefix + " (got -bad/key)"},
        {"label key of 64 characters", "name: a\nlabels:\n  " + std::string(64, 'k') + ": x\n",
         "job.yaml:3: labels." + std::string(64, 'k') +
             ": the key must be a qualified name: the name after any prefix/ must be at most 63 "
             "characters (it has 64) (got " +
             std::string(64, 'k') + ")"},
        {"label value with a slash", "name: a\nlabels:\n  app.kubernetes.io/name: a/b\n",
         "job.yaml:3: labels.\"app.kubernetes.io/name\": must be a label value: at most 63 "
         "letters, digits, '-', '_' or '.', starting and ending with a letter or digit (got a/b)"},
        {"annotation key", "name: a\nannotations:\n  \"team owner\": x\n",
         "job.yaml:3: annotations.\"team owner\": the key must be a qualified name: the name "
         "after any prefix/ must be at most 63 letters, digits, '-', '_' or '.', starting and "
         "ending with a letter or digit (got team owner)"},
        {"node selector value", "name: a\nnodeSelector:\n  pool: \"gpu pool\"\n",
         "job.yaml:3: nodeSelector.pool: must be a label value: at most 63 letters, digits, '-', "
         "'_' or '.', starting and ending with a letter or digit (got gpu pool)"},
        {"toleration Exists with a value",
         "name: a\ntolerations:\n  - key: dedicated\n    operator: Exists\n    value: gpu\n",
         "job.yaml:5: tolerations[0].value: must be empty when operator is Exists (got gpu)"},
        {"toleration without a key", "name: a\ntolerations:\n  - effect: NoSchedule\n",
         "job.yaml:3: tolerations[0].operator: must be Exists when key is empty (an empty key "
         "with Exists tolerates every taint) (got Equal (the default))"},
        {"tolerationSeconds without NoExecute",
         "name: a\ntolerations:\n  - key: k\n    operator: Exists\n    effect: NoSchedule\n"
         "    tolerationSeconds: 30\n",
         "job.yaml:5: tolerations[0].effect: must be NoExecute when tolerationSeconds is set (got "
         "NoSchedule)"},
        {"secretKeyRef name",
         "name: a\nenv:\n  HF_TOKEN:\n    secretKeyRef: {name: HF_Creds, key: token}\n",
         "job.yaml:4: env.HF_TOKEN.secretKeyRef.name: must name a Secret: " + k_subdomain +
             " (got HF_Creds)"},
        {"secretKeyRef key",
         "name: a\nenv:\n  HF_TOKEN:\n    secretKeyRef: {name: hf, key: ../token}\n",
         "job.yaml:4: env.HF_TOKEN.secretKeyRef.key: must be a Secret key: at most 253 letters, "
         "digits, '-', '_' or '.', and not . or .. or starting with .. (got ../token)"},
        {"mlflow credentials Secret",
         "name: a\nmlflow:\n  trackingUri: http://mlflow\n  credentialsSecret: MLflow\n",
         "job.yaml:4: mlflow.credentialsSecret: must name a Secret: " + k_subdomain +
             " (got MLflow)"},
        {"image pull Secret", "name: a\nimagePullSecrets: [regcred, Reg_Cred]\n",
         "job.yaml:2: imagePullSecrets[1]: must name a Secret: " + k_subdomain + " (got Reg_Cred)"},
        {"priority class", "name: a\npriorityClassName: High\n",
         "job.yaml:2: priorityClassName: must name a PriorityClass: " + k_subdomain +
             " (got High)"},
        {"gang priority class",
         "name: a\nrunPolicy:\n  schedulingPolicy:\n    priorityClass: high_prio\n",
         "job.yaml:4: runPolicy.schedulingPolicy.priorityClass: must name a PriorityClass: " +
             k_subdomain + " (got high_prio)"},
        {"claim name", "name: a\nvolumes:\n  - name: d\n    claim: Data\n    mountPath: /d\n",
         "job.yaml:4: volumes[0].claim: must name a PersistentVolumeClaim: " + k_subdomain +
             " (got Data)"},
        {"mount path with ..",
         "name: a\nvolumes:\n  - name: d\n    claim: c\n    mountPath: /data/../etc\n",
         "job.yaml:5: volumes[0].mountPath: must not contain a '..' path element (got "
         "/data/../etc)"},
        {"image with a trailing space", "name: a\nimage: \"trainer:1 \"\n",
         "job.yaml:2: image: must not have leading or trailing whitespace (got \"trainer:1 \")"},
    };
    for (const auto& c : cases) {
        INFO(c.what);
        CHECK(load_error(c.text) == c.message);
    }
}

TEST_CASE("a label key from --set is named by the flag, quoted", "[manifest]") {
    Overrides overrides;
    overrides.sets = {"labels.-bad/key=x"};
    CHECK(load_error("name: a\n", overrides) ==
          "--set labels.\"-bad/key\": " + k_bad_label_prefix + " (got -bad/key)");
}

TEST_CASE("valid Kubernetes names and values load", "[manifest]") {
    const std::string text =
        "name: a\n"
        "labels:\n  app.kubernetes.io/part-of: vision\n  kubernetes.io/team: \"\"\n"
        "annotations:\n  Example.COM/Owner: \"anyone, any text\"\n"
        "nodeSelector:\n  nvidia.com/gpu.product: NVIDIA-H100-80GB-HBM3\n"
        "tolerations:\n  - operator: Exists\n"
        "  - key: node.kubernetes.io/unreachable\n    operator: Exists\n    effect: NoExecute\n"
        "    tolerationSeconds: 300\n"
        "env:\n  HF_TOKEN:\n    secretKeyRef: {name: hf.credentials, key: HF_TOKEN}\n"
        "priorityClassName: high-priority\n"
        "imagePullSecrets: [regcred]\n";
    CHECK(load_error(text) == "(loaded)");
}

TEST_CASE("literal credentials in env are warned about, not refused", "[manifest]") {
    auto job = load_job_text(
        "name: a\n"
        "mlflow:\n  trackingUri: http://mlflow\n  credentialsSecret: mlflow-credentials\n"
        "env:\n"
        "  MLFLOW_TRACKING_PASSWORD: hunter2\n"
        "  HF_TOKEN: hf_abc\n"
        "  AWS_SECRET_ACCESS_KEY: abc\n"
        "  TOKENIZERS_PARALLELISM: \"false\"\n"
        "  KEYBOARD: us\n"
        "  API_TOKEN: \"\"\n"
        "  DB_PASSWORD:\n    secretKeyRef: {name: db, key: password}\n",
        "job.yaml", {});
    REQUIRE(job);
    CHECK(kftrain::manifest::credential_warnings(*job) ==
          std::vector<std::string>{
              "job.yaml:8: env.AWS_SECRET_ACCESS_KEY: looks like a credential but is a literal "
              "value, written into the manifest in plain text; put it in a Secret and use "
              "AWS_SECRET_ACCESS_KEY: {secretKeyRef: {name: ..., key: ...}}",
              "job.yaml:7: env.HF_TOKEN: looks like a credential but is a literal value, written "
              "into the manifest in plain text; put it in a Secret and use HF_TOKEN: "
              "{secretKeyRef: {name: ..., key: ...}}",
              "job.yaml:6: env.MLFLOW_TRACKING_PASSWORD: a literal value, and "
              "mlflow.credentialsSecret also sets MLFLOW_TRACKING_PASSWORD from Secret "
              "mlflow-credentials; the literal is written into the manifest in plain text: "
              "remove it",
          });
}

TEST_CASE("credentials inside URIs are warned about, shown masked", "[manifest]") {
    auto job = load_job_text(
        "name: a\n"
        "mlflow:\n  trackingUri: https://alice:pw@mlflow.example/api?token=abc\n"
        "env:\n"
        "  DATA_URL: https://data.example/set.tar?api_key=k123\n"
        "  MIRROR: https://mirror.example/set.tar\n",
        "job.yaml", {});
    REQUIRE(job);
    CHECK(kftrain::manifest::credential_warnings(*job) ==
          std::vector<std::string>{
              "job.yaml:5: env.DATA_URL: holds a URI with credentials, written into the manifest "
              "in plain text; put them in a Secret (kftrain shows the value as "
              "https://data.example/set.tar?api_key=***)",
              "job.yaml:3: mlflow.trackingUri: holds credentials "
              "(https://***@mlflow.example/api?token=***), written into the manifest in plain "
              "text; give them with mlflow.credentialsSecret instead",
          });
}
