// kftrain data put, ls and get through a real claim: the helper pod runs on the real kubelet,
// kubectl exec and tar stream through the real API server, and the pod is gone afterwards.

#include <sys/stat.h>

#include <catch2/catch.hpp>
#include <string>

#include "e2e/cluster.h"
#include "support/files.h"

using kftrain::e2e::Namespace;
using kftrain::e2e::poll_until;

TEST_CASE("data put, ls and get round-trip a directory with binary files through a real claim",
          "[e2e]") {
    Namespace ns("data");
    const std::string host_dir = kftrain::e2e::make_host_claim(ns, "datasets");
    const std::string src = kftrain::test::make_temp_dir();
    std::string binary;
    for (int i = 0; i < 70000; ++i) {
        binary += static_cast<char>((i * 131) % 256);
    }
    ::mkdir((src + "/train").c_str(), 0755);
    kftrain::test::write_file(src + "/train/images.bin", binary);
    kftrain::test::write_file(src + "/labels.txt", "0\n1\n2\n");
    const std::string image = "--image=" + kftrain::e2e::busybox_image();

    auto put = ns.kftrain({"data", "put", src, "--claim", "datasets", "--path", "/mnist", image});
    INFO(put.out << put.err);
    REQUIRE(put.code == 0);
    // On the node, in the volume's own directory.
    CHECK(kftrain::test::read_bytes(host_dir + "/mnist/train/images.bin") == binary);

    auto listed = ns.kftrain({"data", "ls", "--claim", "datasets", "--path", "/mnist", image});
    INFO(listed.out << listed.err);
    REQUIRE(listed.code == 0);
    CHECK(listed.out.find("train/images.bin") != std::string::npos);
    CHECK(listed.out.find("labels.txt") != std::string::npos);

    const std::string out = kftrain::test::make_temp_dir() + "/back";
    auto got = ns.kftrain({"data", "get", out, "--claim", "datasets", "--path", "/mnist", image});
    INFO(got.out << got.err);
    REQUIRE(got.code == 0);
    CHECK(kftrain::test::read_bytes(out + "/train/images.bin") == binary);
    CHECK(kftrain::test::read_bytes(out + "/labels.txt") == "0\n1\n2\n");

    // No helper pod is left behind (deleted without waiting: poll until the kubelet is done).
    poll_until("the helper pods to go", std::chrono::seconds(90), [&](std::string& last) {
        last = ns.kubectl({"get", "pods", "-o", "name"}).out;
        return last.empty();
    });
}
