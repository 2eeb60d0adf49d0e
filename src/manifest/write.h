#pragma once

// The job file's writer, beside its reader (load.h, convert.h): a JobSpec as job-file YAML
// that load reads back to an equal JobSpec (test/manifest/write_test.cpp).
//
// What it writes: a key only where the spec differs from what the loader gives a job file
// without that key, which is the member's own default in job_spec.h (to_job_spec starts from
// JobSpec{} and fills nothing else), so that a written file leaves the defaults to the loader
// and pins nothing it was not given. Two keys the loader reads differently when present:
//  - replicas, which without the key is the total of roles when roles are set;
//  - image, written too when spec.source names it (a line of the file, or a flag): a job that
//    ships code and names no image gets its framework's (attach_code in code.h).
// Keys follow the job file's order (the schema's); values are typed as the schema types them,
// strings quoted where YAML would read them as another type. What kftrain adds after loading
// (a volume's items and scratch, working_dir, source) is no key of the job file, and is not
// written.

#include <yaml-cpp/yaml.h>

#include <string>

#include "manifest/job_spec.h"

namespace kftrain::manifest {

// Return the job file of a spec as a YAML document (a map).
YAML::Node job_file_node(const JobSpec& spec);

// Return the job file of a spec as YAML text.
std::string write_job_file(const JobSpec& spec);

// Return a TrainJob's runtime as the job file writes it: NAME, or TrainingRuntime/NAME for one
// of the job's namespace.
std::string runtime_text(const JobSpec& spec);

}  // namespace kftrain::manifest
