#pragma once

#include <string>

namespace kftrain::test {

// A PATH on which python3 is Debian's /usr/bin/python3, the one python_torch_ready checks.
inline const std::string k_debian_path = "/usr/bin:/bin:/usr/local/bin";

// Return whether Debian's /usr/bin/python3 imports torch (python3-torch). Where it does not, a
// test that needs it fails in CI (CI set: scripts/setup.sh installs it) and warns elsewhere.
bool python_torch_ready();

// Return whether /usr/bin/python3 imports module, which Debian's package installs; where it
// does not, fail in CI and warn elsewhere, as python_torch_ready.
bool python_module_ready(const char* module, const char* package);

}  // namespace kftrain::test
