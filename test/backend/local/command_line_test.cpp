#include "backend/local/process/command_line.h"

#include <catch2/catch.hpp>

using kftrain::backend::local::map_volume_paths;
using kftrain::backend::local::resolve_command;
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

TEST_CASE("a replica's --metrics-port is pointed at the port the supervisor picked", "[local]") {
    using kftrain::backend::local::set_metrics_port;
    std::vector<std::string> argv = {"kftrain-trainer", "--epochs", "3", "--metrics-port", "9400",
                                     "--log-format",    "json"};
    CHECK(set_metrics_port(argv, 41000));
    CHECK(argv == std::vector<std::string>{"kftrain-trainer", "--epochs", "3", "--metrics-port",
                                           "41000", "--log-format", "json"});
    std::vector<std::string> joined = {"kftrain-trainer", "--metrics-port=9400"};
    CHECK(set_metrics_port(joined, 41001));
    CHECK(joined[1] == "--metrics-port=41001");
    // The program's own name is never taken for the flag, and a command line without it stays.
    std::vector<std::string> none = {"--metrics-port", "--epochs", "3"};
    CHECK_FALSE(set_metrics_port(none, 1));
    CHECK(none == std::vector<std::string>{"--metrics-port", "--epochs", "3"});
}
