#pragma once

namespace kftrain::test {

// Return whether Debian's /usr/bin/python3 imports torch (python3-torch). Where it does not, a
// test that needs it fails in CI (CI set: scripts/setup.sh installs it) and warns elsewhere.
bool python_torch_ready();

}  // namespace kftrain::test
