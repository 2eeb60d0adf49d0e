#pragma once

#include <string>
#include <vector>

#include "manifest/job_spec.h"
#include "util/result.h"

namespace kftrain::backend::local {

// Rewrite the paths under a volume's mountPath to its localPath, for volumes
// that have one: an argument equal to the mountPath or under it ("/data",
// "/data/mnist", "--data-dir=/data/mnist") points into the localPath instead.
// A relative localPath is taken from cwd. Other arguments are kept as they are.
std::vector<std::string> map_volume_paths(const std::vector<std::string>& args,
                                          const std::vector<manifest::Volume>& volumes,
                                          const std::string& cwd);

// Point a kftrain-trainer command line's --metrics-port (as "--metrics-port N" or
// "--metrics-port=N") at port; return whether it had one.
bool set_metrics_port(std::vector<std::string>& argv, int port);

// Find the program a replica runs: kftrain-trainer beside kftrain (in
// self_dir) first, then on PATH; any other command on PATH or as a path.
// The error names the field "command" and exits 2.
util::Result<std::string> resolve_command(const std::string& command, const std::string& self_dir);

}  // namespace kftrain::backend::local
