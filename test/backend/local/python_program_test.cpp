#include "backend/local/python_program.h"

#include <sys/stat.h>

#include <catch2/catch.hpp>

#include "support/files.h"

using kftrain::backend::local::imports_torch;
using kftrain::backend::local::python_program;

TEST_CASE("a script imports torch by any import statement that names it", "[local][doctor]") {
    for (const char* source :
         {"import torch\n", "import os, torch\n", "import numpy as np, torch.nn as nn\n",
          "from torch import nn\n", "from torch.utils.data import DataLoader\n",
          "try:\n    import torch\nexcept ImportError:\n    pass\n", "import os; import torch\n"}) {
        INFO(source);
        CHECK(imports_torch(source));
    }
    for (const char* source : {"import torchvision_extra\n", "# import torch\n",
                               "print('import torch')\n", "from mytorch import x\n"}) {
        INFO(source);
        CHECK_FALSE(imports_torch(source));
    }
}

TEST_CASE("the Python a command runs: python itself, through env, or by a shebang",
          "[local][doctor]") {
    const std::string dir = kftrain::test::make_temp_dir();
    auto direct = python_program({"python3", "-u", "train.py", "--lr", "0.1"}, dir);
    REQUIRE(direct);
    CHECK(direct->interpreter == "python3");
    CHECK(direct->script == "train.py");
    auto via_env = python_program({"/usr/bin/env", "python3.11", "train.py"}, dir);
    REQUIRE(via_env);
    CHECK(via_env->interpreter == "python3.11");
    CHECK(via_env->script == "train.py");

    kftrain::test::write_file(dir + "/train.py", "#!/usr/bin/env -S python3 -u\nimport torch\n");
    auto own = python_program({"./train.py"}, dir);
    REQUIRE(own);
    CHECK(own->interpreter == "python3");
    CHECK(own->script == "./train.py");
    CHECK(kftrain::backend::local::script_imports_torch(*own, dir));

    const std::string launcher = dir + "/torchrun";
    kftrain::test::write_file(launcher,
                              "#!/opt/venv/bin/python3\nfrom torch.distributed import run\n");
    ::chmod(launcher.c_str(), 0755);
    auto launched = python_program({launcher, "--nproc-per-node", "2", "train.py"}, dir);
    REQUIRE(launched);
    CHECK(launched->interpreter == "/opt/venv/bin/python3");
    CHECK(launched->script == "train.py");

    CHECK_FALSE(python_program({"/bin/sh", "-c", "python3 train.py"}, dir));
}
