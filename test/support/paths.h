#pragma once

// Where the tests find the source tree, the reference definitions and the programs the build
// made. The paths are compiled into one generated file (test/CMakeLists.txt), not into every
// test's command line, so that a clone elsewhere (CI's) recompiles only that file.

namespace kftrain::test {

// The source tree's root.
const char* source_dir();
// test/data.
const char* test_data_dir();
// The build tree's root.
const char* build_dir();
// The PyTorchJob CRD (v1.9.0) under ../shared/reference.
const char* pytorchjob_crd_file();
// The Training Operator v1.9's CRDs (TFJob, XGBoostJob, JAXJob, ...).
const char* operator_crd_dir();
// Trainer v2.3.0's TrainJob CRD.
const char* trainjob_crd_file();
// Katib v0.19.0's definitions.
const char* katib_dir();
// The fake kubectl (test/fakes/kubectl).
const char* fake_kubectl();
// The built kftrain.
const char* kftrain_binary();
// The stand-in replica the local backend's tests run.
const char* fake_replica();
// The cmake and cpack that configured this build (the packaging tests).
const char* cmake_command();
const char* cpack_command();
// Whether this build makes kftrain-trainer (and so installs it).
bool installs_trainer();

}  // namespace kftrain::test
