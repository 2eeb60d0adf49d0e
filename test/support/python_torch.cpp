#include "support/python_torch.h"

#include <catch2/catch.hpp>
#include <cstdlib>

#include "util/run.h"

namespace kftrain::test {

bool python_torch_ready() {
    util::RunOptions options;
    options.argv = {"/usr/bin/python3", "-c", "import torch"};
    auto run = util::run(options);
    if (run && run->status.success()) {
        return true;
    }
    const char* ci = std::getenv("CI");
    if (ci != nullptr && *ci != '\0') {
        FAIL("/usr/bin/python3 cannot import torch (scripts/setup.sh installs python3-torch)");
    }
    WARN("/usr/bin/python3 cannot import torch: the test that needs it did not run");
    return false;
}

}  // namespace kftrain::test
