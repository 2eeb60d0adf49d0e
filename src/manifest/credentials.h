#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "manifest/job_spec.h"

namespace kftrain::manifest {

// Return a warning for every credential a job file gives as a literal env value, which the
// manifest then carries in plain text: a variable that a secretKeyRef also sets (the
// mlflow.credentialsSecret variables), or one whose name has a word PASSWORD, TOKEN,
// SECRET or KEY (HF_TOKEN, AWS_SECRET_ACCESS_KEY; not TOKENIZERS_PARALLELISM).
std::vector<std::string> credential_warnings(const JobSpec& spec);

// Print credential_warnings as "kftrain: warning: ..." lines to err.
void print_credential_warnings(const JobSpec& spec, std::ostream& err);

}  // namespace kftrain::manifest
