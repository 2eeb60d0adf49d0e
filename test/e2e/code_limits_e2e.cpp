// Code at the documented limits on the real cluster (docs/limits.md): 700 KiB and 2,000 files
// reach every replica (a client-side apply's 256 KiB annotation took neither), and `kftrain
// run` of a python3 script without --image runs on the image render names.

#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "e2e/cluster.h"
#include "support/files.h"

using kftrain::e2e::Namespace;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

size_t count(const std::string& text, const std::string& part) {
    size_t n = 0;
    for (size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) {
        ++n;
    }
    return n;
}

// seen.py in folder: each replica prints how many files and bytes it sees under its working
// directory as a program would (the volume's own ..data entries aside), then meets the other
// (rank 0 waits for rank 1), so that neither ends before the other started.
void add_seen_script(const std::string& folder) {
    kftrain::test::write_file(folder + "/seen.py", R"(import os
import socket
import time

files = [os.path.join(d, f) for d, subs, names in os.walk(".", followlinks=True)
         for f in names if not f.startswith("..") and not d.startswith("./..")]
rank = int(os.environ["RANK"])
print(f"rank {rank} of {os.environ['WORLD_SIZE']} seen {len(files)} files",
      f"{sum(os.path.getsize(f) for f in files)} bytes", flush=True)
port = int(os.environ["MASTER_PORT"])
if rank == 0:
    with socket.create_server(("", port)) as server:
        server.settimeout(180)
        server.accept()[0].close()
else:
    deadline = time.time() + 180
    while True:
        try:
            socket.create_connection((os.environ["MASTER_ADDR"], port), timeout=5).close()
            break
        except OSError:
            if time.time() > deadline:
                raise
            time.sleep(0.5)
)");
}

// Submit a two-replica job shipping folder (with seen.py), wait for it and return its logs.
std::string shipped_counts(const Namespace& ns, const std::string& name,
                           const std::string& folder) {
    add_seen_script(folder);
    ns.submit("name: " + name + "\nreplicas: 2\nimage: " + kftrain::e2e::python_image() +
              "\ncommand: [python3, seen.py]\nresources: {cpu: 100m, memory: 64Mi}\n"
              "code:\n  path: " +
              folder + "\n");
    auto waited =
        ns.kftrain({"wait", name, "--for", "succeeded", "--timeout", "4m", "--interval", "1s"});
    INFO(waited.out << waited.err << kftrain::e2e::pods_of(ns));
    REQUIRE(waited.code == 0);
    auto logs = ns.kftrain({"logs", name});
    INFO(logs.err);
    return logs.out;
}

}  // namespace

TEST_CASE("700 KiB of code and 2,000 files reach every replica", "[e2e]") {
    Namespace ns("codesize");
    const std::string dir = kftrain::test::make_temp_dir();
    fs::create_directories(dir + "/big");
    for (int i = 0; i < 7; ++i) {
        std::string content(100 * 1024, 'a');
        for (size_t at = 0; at < content.size(); at += 61) {
            content[at] = '\n';
        }
        kftrain::test::write_file(dir + "/big/part" + std::to_string(i) + ".txt", content);
    }
    const std::string big = shipped_counts(ns, "bigcode", dir + "/big");
    INFO(big);
    const std::string seen_big =
        "seen 8 files " + std::to_string(716800 + fs::file_size(dir + "/big/seen.py"));
    CHECK(count(big, seen_big + " bytes") == 2);

    for (int d = 0; d < 20; ++d) {
        const std::string sub = dir + "/many/pkg" + std::to_string(d);
        fs::create_directories(sub);
        for (int i = 0; i < 100; ++i) {
            kftrain::test::write_file(sub + "/module_" + std::to_string(i) + ".py",
                                      "VALUE = " + std::to_string(d * 100 + i) + "\n");
        }
    }
    const std::string many = shipped_counts(ns, "manycode", dir + "/many");
    INFO(many);
    CHECK(count(many, "seen 2001 files") == 2);
}

TEST_CASE("kftrain run of a python3 script without --image runs on the image render names",
          "[e2e]") {
    const char* named = std::getenv("KFTRAIN_E2E_DEFAULT_PYTHON_IMAGE");
    REQUIRE(named != nullptr);  // test/e2e/run.sh tags the suite's python image so
    std::string image = named;
    if (image.rfind("docker.io/", 0) == 0) {
        image = image.substr(10);  // as the job names it
    }
    Namespace ns("plainrun");
    const std::string dir = kftrain::test::make_temp_dir();
    add_seen_script(dir);
    auto run = ns.kftrain({"run", "--replicas", "2", "--name", "plain", "--cpu", "100m", "--memory",
                           "64Mi", "--code", dir, "python3", "seen.py"});
    INFO(run.out << run.err);
    REQUIRE(run.code == 0);
    auto waited =
        ns.kftrain({"wait", "plain", "--for", "succeeded", "--timeout", "4m", "--interval", "1s"});
    INFO(waited.out << waited.err << kftrain::e2e::pods_of(ns));
    REQUIRE(waited.code == 0);
    auto logs = ns.kftrain({"logs", "plain"});
    INFO(logs.out << logs.err);
    CHECK(count(logs.out, "rank 0 of 2 seen 1 files") == 1);
    CHECK(count(logs.out, "rank 1 of 2 seen 1 files") == 1);
    auto pods = ns.kubectl({"get", "pods", "-o", "json"});
    REQUIRE(pods.code == 0);
    const json items = json::parse(pods.out)["items"];
    REQUIRE(items.size() == 2);
    for (const auto& pod : items) {
        CHECK(pod["spec"]["containers"][0]["image"] == image);
    }
}
