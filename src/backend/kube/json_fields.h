#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "job/status.h"
#include "util/json_fields.h"
#include "util/result.h"

namespace kftrain::backend::kube {

// Read fields of kubectl's JSON without throwing: a missing key, a value of
// another type or a non-object gives an empty value, never an exception.

// Parse kubectl's output as one JSON object; an error with exit code 4 when it is not one.
util::Result<nlohmann::json> parse_json_object(const std::string& text);

// The lenient readers every layer shares (util/json_fields.h).
using util::int_at;
using util::member;
using util::string_at;

// Return the element of a list of containers (or container statuses) with this name (the
// operator requires "pytorch" of the training container; a TrainJob's node container is
// "node"), else the first; null when empty.
const nlohmann::json& training_container(const nlohmann::json& containers,
                                         const std::string& name = "pytorch");

// Return a resource quantity ("2", "500m", "4Gi", or a bare number) in base units; 0 if
// absent or unreadable.
double quantity_at(const nlohmann::json& list, const char* key);

// Return what each of replicas replicas of a type asks for, from a container's resources:
// requests, else limits (which Kubernetes then uses as the requests); GPUs are limits.
job::ReplicaRequest replica_request(const std::string& type, int replicas,
                                    const nlohmann::json& resources);

// Copy the string members of a JSON object (a node selector) into out, keeping those there.
void copy_strings(const nlohmann::json& object, std::map<std::string, std::string>& out);

// Read a job's metadata into its status: name, namespace, uid, labels, annotations and its
// creation time (every kind's reader, so a job's record knows whose and which job it was).
void read_job_metadata(const nlohmann::json& metadata, job::JobStatus& status);

}  // namespace kftrain::backend::kube
