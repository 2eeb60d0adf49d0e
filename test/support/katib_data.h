#pragma once

#include <string>

#include "backend/kube/search/experiment_reader.h"

namespace kftrain::test {

// Return the search read from a Katib Experiment and its Trials as a cluster returned them:
// test/data/kube/experiment-NAME.json and trials-NAME.json (the test fails where they do not
// read).
backend::kube::ClusterSearch read_katib_search(const std::string& name);

}  // namespace kftrain::test
