#pragma once

#include <cstdint>
#include <string>

#include "staging/claim_path.h"

namespace kftrain::backend::kube {

// The helper pod's one container, named in `kubectl exec -c`.
inline constexpr const char* k_helper_container = "copy";
// Longest the helper pod lives, should kftrain be killed before it deletes it (6h).
inline constexpr int64_t k_helper_deadline_s = 6 * 3600;

// What the helper pod that reaches a claim is.
struct HelperPod {
    std::string name;
    std::string namespace_;  // "" for kubectl's
    std::string claim;
    std::string image = staging::k_helper_image;
    bool read_only = true;  // get and ls mount the claim read-only
    bool as_root = false;   // --as-root: for volumes whose files only root may write
};

// Return a pod name for a claim: "kftrain-data-" with the claim's first 40 characters and a
// suffix ("kftrain-data-mnist-data-x7k2p").
std::string helper_pod_name(const std::string& claim, const std::string& suffix);

// Return a random 5-character suffix of lower-case letters and digits.
std::string random_suffix();

// Return the helper pod's manifest as YAML for `kubectl apply -f -`: labelled as kftrain's,
// restartPolicy Never, activeDeadlineSeconds k_helper_deadline_s, one container that sleeps
// with the claim mounted at staging::k_mount_point (read-only unless it writes), running as user
// 65534 with no privileges unless as_root; a writing pod gets fsGroup 65534 so it may write.
std::string helper_pod_manifest(const HelperPod& pod);

}  // namespace kftrain::backend::kube
