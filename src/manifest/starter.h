#pragma once

#include <string>

namespace kftrain::manifest {

// Return a commented starter job file: the common keys set, every other key
// commented out with its default and a line of documentation.
std::string starter_job_file(const std::string& name);

// Return the job-file reference as a Markdown table: key, type, default, meaning.
std::string job_file_reference();

}  // namespace kftrain::manifest
