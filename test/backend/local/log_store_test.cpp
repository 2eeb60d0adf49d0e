#include "backend/local/state/log_store.h"

#include <catch2/catch.hpp>
#include <filesystem>

#include "backend/local/local_fixture.h"
#include "backend/local/state/job_state.h"
#include "backend/local/state/state_dir.h"
#include "support/files.h"

using kftrain::backend::local::LogRecord;
using kftrain::backend::local::parse_log_record;
using kftrain::backend::local::replica_matches;
using kftrain::backend::local::tail_per_replica;
namespace job = kftrain::job;

TEST_CASE("a record belongs to an attempt by its replica and time, both ends included", "[local]") {
    using kftrain::backend::local::AttemptWindow;
    using kftrain::backend::local::in_attempt;
    const std::map<std::string, AttemptWindow> windows = {
        {"worker-0", {"2026-11-22T04:00:00Z", "2026-11-22T04:00:10Z"}},
        {"worker-1", {"2026-11-22T04:00:00Z", ""}},  // not finished: open-ended
    };
    struct Case {
        const char* time;
        const char* replica;
        bool in;
    };
    const Case cases[] = {
        {"2026-11-22T04:00:00Z", "worker-0", true},  {"2026-11-22T04:00:10Z", "worker-0", true},
        {"2026-11-22T04:00:11Z", "worker-0", false}, {"2026-11-22T03:59:59Z", "worker-0", false},
        {"2026-11-22T05:00:00Z", "worker-1", true},  {"2026-11-22T04:00:05Z", "master-0", false},
    };
    for (const auto& c : cases) {
        CAPTURE(c.time, c.replica);
        CHECK(in_attempt(LogRecord{c.time, c.replica, "x"}, windows) == c.in);
    }
}

TEST_CASE("combined log lines split into time, replica and text", "[local]") {
    auto record = parse_log_record("2026-11-22T04:00:00Z\tworker-1\ta\tb");
    REQUIRE(record.has_value());
    CHECK(record->time == "2026-11-22T04:00:00Z");
    CHECK(record->replica == "worker-1");
    CHECK(record->text == "a\tb");
    CHECK_FALSE(parse_log_record("no tabs here").has_value());
}

TEST_CASE("the --replica filter selects a type or one replica", "[local]") {
    struct Case {
        std::string filter;
        std::string replica;
        bool selected;
    };
    const Case cases[] = {
        {"", "worker-3", true},         {"worker", "worker-3", true},
        {"worker", "master-0", false},  {"master", "master-0", true},
        {"worker-3", "worker-3", true}, {"worker-3", "worker-31", false},
        {"work", "worker-1", false},    {"Master", "master-0", true},
    };
    for (const auto& c : cases) {
        INFO(c.filter << " " << c.replica);
        CHECK(replica_matches(c.filter, c.replica) == c.selected);
    }
}

TEST_CASE("a tail keeps the last lines of each replica in arrival order", "[local]") {
    std::vector<LogRecord> records = {
        {"t", "master-0", "m1"}, {"t", "worker-0", "w1"}, {"t", "master-0", "m2"},
        {"t", "worker-0", "w2"}, {"t", "master-0", "m3"},
    };
    auto tail = tail_per_replica(records, 1);
    REQUIRE(tail.size() == 2);
    CHECK(tail[0].text == "w2");
    CHECK(tail[1].text == "m3");
    CHECK(tail_per_replica(records, 0).empty());
}

TEST_CASE("a job name that is not a DNS-1035 label never becomes a path", "[local]") {
    using kftrain::state::check_job_name;
    CHECK(check_job_name("mnist-local").ok());
    for (const char* bad : {"../etc", "a/b", "", "Upper", "-x", "x-"}) {
        INFO(bad);
        auto checked = check_job_name(bad);
        REQUIRE_FALSE(checked.ok());
        CHECK(checked.error_code(0) == 2);
    }
    auto read = kftrain::backend::local::read_job_state("../x");
    REQUIRE_FALSE(read.ok());
    CHECK(read.error() == "job name: must be a lower-case DNS-1035 label (got ../x)");
}

TEST_CASE("a log cursor reads a log that outgrew it a bounded slice at a time", "[local]") {
    const std::string dir = kftrain::test::make_temp_dir();
    const std::string path = dir + "/all.log";
    const std::string line = "2026-11-27T10:00:00.000000000Z\tworker-0\t" + std::string(1000, 'x');
    std::string log;
    const size_t lines = (kftrain::backend::local::LogCursor::k_max_read / line.size()) * 3;
    for (size_t i = 0; i < lines; ++i) {
        log += line + "\n";
    }
    kftrain::test::write_file(path, log);
    kftrain::backend::local::LogCursor cursor(path);
    auto first = cursor.next();
    CHECK_FALSE(cursor.caught_up());
    CHECK(first.size() < lines);
    size_t read = first.size();
    for (int calls = 0; !cursor.caught_up() && calls < 10; ++calls) {
        read += cursor.next().size();
    }
    CHECK(cursor.caught_up());
    CHECK(read == lines);  // nothing lost between slices

    // Cut short and written again (truncated in place): read from its start, not lost.
    kftrain::test::write_file(path, line + "\n" + line + "\n");
    CHECK(cursor.next().size() == 2);
    std::filesystem::remove_all(dir);
}

TEST_CASE("logs and --follow of a job whose logs were cut say so on stderr, and where", "[local]") {
    kftrain::test::LocalJobs jobs;
    const std::string release = jobs.dir() + "/release";
    const std::string file = jobs.dir() + "/cut.yaml";
    kftrain::test::write_file(file,
                              "name: cut\nreplicas: 1\ncommand: [\"/bin/sh\", \"-c\", "
                              "\"while [ ! -e " +
                                  release + " ]; do sleep 0.05; done; echo after\"]\n");
    REQUIRE(jobs.kftrain({"submit", "-f", file, "--local"}).code == 0);
    jobs.wait_for("cut", kftrain::test::all_replicas_running);
    // The replica's own log cannot be opened, as on a full disk: the line it prints is lost.
    const std::string own = kftrain::backend::local::logs_dir("cut") + "/master-0.log";
    std::filesystem::create_directories(own);
    kftrain::test::write_file(release, "go\n");
    REQUIRE(jobs.kftrain({"wait", "cut", "--local", "--timeout", "60s"}).code == 0);

    const std::string notice = "kftrain: cut: the job's logs were cut: cannot open " + own +
                               " for writing; what its replicas printed after that is not in " +
                               kftrain::backend::local::logs_dir("cut") + "\n";
    auto logs = jobs.kftrain({"logs", "cut", "--local"});
    CHECK(logs.code == 0);
    CHECK(logs.err == notice);
    auto followed = jobs.kftrain({"logs", "cut", "--local", "--follow"});
    CHECK(followed.code == 0);
    CHECK(followed.err == notice);
}
