#include "backend/kube/data/helper_pod.h"

#include <yaml-cpp/yaml.h>

#include <chrono>
#include <random>

#include "manifest/yaml/emit.h"
#include "staging/claim_path.h"

namespace kftrain::backend::kube {
namespace {

constexpr int64_t k_nobody = 65534;

YAML::Node security_context(const HelperPod& pod) {
    YAML::Node context;
    if (pod.as_root) {
        context["runAsUser"] = 0;
        return context;
    }
    context["runAsNonRoot"] = true;
    context["runAsUser"] = k_nobody;
    context["runAsGroup"] = k_nobody;
    if (!pod.read_only) {
        context["fsGroup"] = k_nobody;  // block volumes: group-writable for the pod
        context["fsGroupChangePolicy"] = "OnRootMismatch";
    }
    context["seccompProfile"]["type"] = "RuntimeDefault";
    return context;
}

YAML::Node container(const HelperPod& pod) {
    YAML::Node c;
    c["name"] = k_helper_container;
    c["image"] = pod.image;
    c["imagePullPolicy"] = "IfNotPresent";
    // Only sleeps: kftrain runs tar, find and stat in it with kubectl exec.
    // Every command word a string: a plain 21600 is a number, which the API server refuses in
    // a []string ("ReadString: expects \" or n").
    c["command"].push_back(manifest::string_node("sleep"));
    c["command"].push_back(manifest::string_node(std::to_string(k_helper_deadline_s)));
    YAML::Node mount;
    mount["name"] = "claim";
    mount["mountPath"] = staging::k_mount_point;
    mount["readOnly"] = pod.read_only;
    c["volumeMounts"].push_back(mount);
    c["resources"]["requests"]["cpu"] = "50m";
    c["resources"]["requests"]["memory"] = "32Mi";
    if (!pod.as_root) {
        c["securityContext"]["allowPrivilegeEscalation"] = false;
        c["securityContext"]["readOnlyRootFilesystem"] = true;
        c["securityContext"]["capabilities"]["drop"].push_back("ALL");
    }
    return c;
}

}  // namespace

std::string helper_pod_name(const std::string& claim, const std::string& suffix) {
    std::string part = claim.substr(0, 40);
    while (!part.empty() && (part.back() == '-' || part.back() == '.')) {
        part.pop_back();
    }
    for (char& c : part) {
        c = c == '.' ? '-' : c;  // a pod name is also its hostname: no dots
    }
    return "kftrain-data-" + part + "-" + suffix;
}

std::string random_suffix() {
    static const char k_chars[] = "bcdfghjklmnpqrstvwxz2456789";
    std::random_device device;
    std::mt19937 generator(
        device() ^
        static_cast<unsigned>(std::chrono::steady_clock::now().time_since_epoch().count()));
    std::uniform_int_distribution<size_t> pick(0, sizeof k_chars - 2);
    std::string suffix;
    for (int i = 0; i < 5; ++i) {
        suffix += k_chars[pick(generator)];
    }
    return suffix;
}

std::string helper_pod_manifest(const HelperPod& pod) {
    YAML::Node root;
    root["apiVersion"] = "v1";
    root["kind"] = "Pod";
    root["metadata"]["name"] = pod.name;
    if (!pod.namespace_.empty()) {
        root["metadata"]["namespace"] = pod.namespace_;
    }
    root["metadata"]["labels"]["app.kubernetes.io/managed-by"] = "kftrain";
    root["metadata"]["labels"]["app.kubernetes.io/component"] = "data-staging";
    root["metadata"]["annotations"]["kftrain.io/claim"] = pod.claim;
    YAML::Node spec = root["spec"];
    spec["restartPolicy"] = "Never";
    spec["activeDeadlineSeconds"] = k_helper_deadline_s;
    spec["terminationGracePeriodSeconds"] = 1;
    spec["automountServiceAccountToken"] = false;
    spec["securityContext"] = security_context(pod);
    spec["containers"].push_back(container(pod));
    YAML::Node volume;
    volume["name"] = "claim";
    volume["persistentVolumeClaim"]["claimName"] = pod.claim;
    volume["persistentVolumeClaim"]["readOnly"] = pod.read_only;
    spec["volumes"].push_back(volume);
    return manifest::to_yaml(root);
}

}  // namespace kftrain::backend::kube
