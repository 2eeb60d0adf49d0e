#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <string>

#include "manifest/job_spec.h"

namespace kftrain::manifest {

// Kubernetes' own rules for names and values, as k8s.io/apimachinery's validation and the
// core/v1 pod validation state them, checked before anything reaches the API server. Each
// *_problem function returns "" when the text passes, else the rule it breaks, worded to
// follow a job-file key in a message ("must be a label value: ...").

// The longest DNS label Kubernetes takes: a name, a label value, a namespace.
inline constexpr std::size_t k_max_dns_label = 63;

// Return whether text is a DNS-1035 label: lower-case alphanumerics and '-',
// starting with a letter, ending with an alphanumeric, at most 63 characters.
bool is_dns1035_label(const std::string& text);

// Return whether text is a DNS-1123 label (like DNS-1035, may start with a digit).
bool is_dns1123_label(const std::string& text);

// Return whether text is a DNS-1123 subdomain: DNS-1123 labels (of any length) joined by '.',
// at most 253 characters; what Kubernetes requires of most object names.
bool is_dns1123_subdomain(const std::string& text);

// At most this many bytes in all keys and values of one object's annotations
// (apimachinery's TotalAnnotationSizeLimitB).
inline constexpr std::size_t k_max_annotation_bytes = 256 * 1024;

// Describe what a qualified name (a label, annotation or taint key) breaks: an optional
// DNS-1123 subdomain prefix and '/', then a name of at most 63 letters, digits, '-', '_' and
// '.', starting and ending with a letter or digit.
std::string qualified_name_problem(const std::string& text);

// Describe what an annotation key breaks: a qualified name once lower-cased, as
// apimachinery checks it.
std::string annotation_key_problem(const std::string& text);

// Describe what a label value breaks: at most 63 of the name part's characters, or empty.
std::string label_value_problem(const std::string& text);

// Describe the annotations' total size when it is over k_max_annotation_bytes.
std::string annotations_size_problem(const std::map<std::string, std::string>& annotations);

// Describe what a key of a Secret (or ConfigMap) breaks: at most 253 of [-._a-zA-Z0-9],
// not "." or "..", not starting with "..".
std::string secret_key_problem(const std::string& text);

// Describe what the name of an object a job refers to (a Secret, claim, ConfigMap,
// PriorityClass) breaks: a DNS-1123 subdomain. what names the kind of object.
std::string object_name_problem(const std::string& text, const std::string& what);

// Describe what a container's mount path breaks: absolute, with no ".." element.
std::string mount_path_problem(const std::string& path);

// Describe what an image reference breaks: no leading or trailing whitespace.
std::string image_problem(const std::string& image);

// A field of a toleration that Kubernetes rejects: the field under tolerations[i]
// ("operator"), its value as written, and the rule it breaks.
struct FieldProblem {
    std::string field;
    std::string value;
    std::string rule;
};

// Check a toleration as the core/v1 validation does: the key, the operator with the key and
// value, the effect, and tolerationSeconds only with NoExecute.
std::optional<FieldProblem> toleration_problem(const Toleration& toleration);

}  // namespace kftrain::manifest
