#include <catch2/catch.hpp>

#include "cli/local/process/command_line.h"

using kftrain::cli::local::map_volume_paths;
using kftrain::cli::local::resolve_command;
using kftrain::manifest::Volume;

TEST_CASE("volume mount paths in arguments point into their localPath", "[local]") {
    std::vector<Volume> volumes(3);
    volumes[0].name = "data";
    volumes[0].mount_path = "/data";
    volumes[0].local_path = "/home/me/mnist";
    volumes[1].name = "ckpt";
    volumes[1].mount_path = "/checkpoints/";
    volumes[1].local_path = "out/ckpt";
    volumes[2].name = "config";
    volumes[2].mount_path = "/etc/app";  // no localPath: left as is
    struct Case {
        std::string in;
        std::string out;
    };
    const Case cases[] = {
        {"/data", "/home/me/mnist"},
        {"/data/mnist", "/home/me/mnist/mnist"},
        {"--data-dir=/data/x", "--data-dir=/home/me/mnist/x"},
        {"/database", "/database"},
        {"/checkpoints/run1", "/work/job/out/ckpt/run1"},
        {"/etc/app/conf.yaml", "/etc/app/conf.yaml"},
        {"--epochs", "--epochs"},
        {"data/mnist", "data/mnist"},
    };
    for (const auto& c : cases) {
        INFO(c.in);
        CHECK(map_volume_paths({c.in}, volumes, "/work/job") == std::vector<std::string>{c.out});
    }
}

TEST_CASE("an unknown command is an error naming the field", "[local]") {
    auto missing = resolve_command("no-such-program-kftrain", "");
    REQUIRE_FALSE(missing.ok());
    CHECK(missing.error() ==
          "command: not found beside kftrain or on PATH (got no-such-program-kftrain)");
    CHECK(missing.error_code(0) == 2);
    CHECK(resolve_command("sh", "").value().find("/sh") != std::string::npos);
}
