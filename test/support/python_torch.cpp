#include "support/python_torch.h"

#include <catch2/catch.hpp>
#include <cstdlib>

#include "util/run.h"

namespace kftrain::test {

bool python_module_ready(const char* module, const char* package) {
    util::RunOptions options;
    options.argv = {"/usr/bin/python3", "-c", std::string("import ") + module};
    auto run = util::run(options);
    if (run && run->status.success()) {
        return true;
    }
    const char* ci = std::getenv("CI");
    if (ci != nullptr && *ci != '\0') {
        FAIL("/usr/bin/python3 cannot import " << module << " (scripts/setup.sh installs "
                                               << package << ")");
    }
    WARN("/usr/bin/python3 cannot import " << module << ": the test that needs it did not run");
    return false;
}

bool python_torch_ready() {
    return python_module_ready("torch", "python3-torch");
}

}  // namespace kftrain::test
