#pragma once

// The source tree's own files the CLI's tests read: examples/, test/data/ and its golden files.

#include <string>

#include "support/paths.h"

namespace kftrain::test {

// The example job file the tour starts from, and the search of a program of its own.
inline const std::string k_example_job =
    std::string(kftrain::test::source_dir()) + "/examples/mnist-ddp.yaml";
inline const std::string k_tune_example_job =
    std::string(kftrain::test::source_dir()) + "/examples/python-ddp/tune.yaml";

// Return the text of a file under examples/ (fails the test if unreadable).
std::string read_example(const std::string& relative);

// Return the text of a file under test/data (fails the test if unreadable).
std::string read_test_data(const std::string& relative);

// Compare text with a golden file under test/data/golden; with
// KFTRAIN_UPDATE_GOLDEN=1 in the environment, rewrite the file instead.
bool matches_golden(const std::string& name, const std::string& text);

}  // namespace kftrain::test
