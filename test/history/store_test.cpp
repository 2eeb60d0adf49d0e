// The store of records: each written once (a second writer leaves the first), listed newest
// first from their first lines alone, and a full disk leaving every record as it was.

#include "history/store.h"

#include <signal.h>
#include <stdlib.h>
#include <sys/resource.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <thread>

#include "support/files.h"
#include "support/text.h"

using kftrain::history::list_records;
using kftrain::history::newest_record;
using kftrain::history::read_record;
using kftrain::history::Record;
using kftrain::history::record_path;
using kftrain::history::write_record;
using kftrain::history::Written;
using kftrain::test::contains;

namespace {

// A temporary XDG_STATE_HOME for one test.
struct StateHome {
    StateHome() : dir(kftrain::test::make_temp_dir()) {
        ::setenv("XDG_STATE_HOME", dir.c_str(), 1);
    }
    std::string dir;
};

Record record_of(const std::string& ns, const std::string& name, const std::string& uid,
                 const std::string& finished) {
    Record r;
    r.summary.context = "prod/eu-west";
    r.summary.namespace_ = ns;
    r.summary.name = name;
    r.summary.uid = uid;
    r.summary.phase = "Succeeded";
    r.summary.finished = finished;
    r.summary.recorded = finished;
    r.logs.push_back(kftrain::history::keep_log("master-0", false, {"done " + uid}));
    return r;
}

std::size_t files_in(const std::string& dir) {
    std::size_t n = 0;
    for (const auto& entry : std::filesystem::recursive_directory_iterator(dir)) {
        n += entry.is_regular_file() ? 1 : 0;
    }
    return n;
}

}  // namespace

TEST_CASE("a record is written once: a second writer leaves the first as it was", "[history]") {
    StateHome home;
    auto first = record_of("team-a", "bert", "uid-1", "2026-12-01T10:00:00Z");
    REQUIRE(write_record(first).value() == Written::Kept);
    auto second = first;
    second.logs[0].lines = {"another writer"};
    CHECK(write_record(second).value() == Written::AlreadyKept);
    const std::string path = record_path({"prod/eu-west", "team-a", "bert", "uid-1"});
    CHECK(contains(path, home.dir + "/kftrain/history/prod%2Feu-west/team-a/bert.uid-1.jsonl"));
    auto read = read_record(path);
    REQUIRE(read);
    CHECK(read->logs[0].lines == std::vector<std::string>{"done uid-1"});
    CHECK((kftrain::test::mode_of(path) & 0777) == 0600);
    CHECK(files_in(home.dir) == 1);  // no temporary file left

    // Writers at once: one keeps it, the others find it kept.
    auto racing = record_of("team-a", "gpt", "uid-9", "2026-12-01T10:00:00Z");
    std::vector<Written> got(4);
    std::vector<std::thread> writers;
    for (std::size_t i = 0; i < got.size(); ++i) {
        writers.emplace_back([&, i] { got[i] = write_record(racing).value(); });
    }
    for (auto& t : writers) {
        t.join();
    }
    CHECK(std::count(got.begin(), got.end(), Written::Kept) == 1);
    CHECK(files_in(home.dir) == 2);
}

TEST_CASE("records list newest first, by namespace, name and finish time", "[history]") {
    StateHome home;
    REQUIRE(write_record(record_of("team-a", "bert", "uid-1", "2026-12-01T10:00:00Z")));
    REQUIRE(write_record(record_of("team-a", "bert", "uid-2", "2026-12-03T10:00:00Z")));
    REQUIRE(write_record(record_of("team-b", "gpt", "uid-3", "2026-12-02T10:00:00Z")));
    auto all = list_records({});
    REQUIRE(all.records.size() == 3);
    CHECK(all.records[0].summary.uid == "uid-2");
    CHECK(all.records[1].summary.uid == "uid-3");
    CHECK(all.records[2].summary.uid == "uid-1");
    CHECK(list_records({"prod/eu-west", "team-b", "", 0}).records.size() == 1);
    CHECK(list_records({"other", "", "", 0}).records.empty());
    auto since = list_records({"", "", "", 1796205600});  // 2026-12-02T10:00:00Z
    CHECK(since.records.size() == 2);
    // A job re-created under the same name is another record; the newest answers for it.
    auto newest = newest_record("prod/eu-west", "team-a", "bert");
    REQUIRE(newest);
    CHECK(contains(*newest, "bert.uid-2.jsonl"));
    CHECK(!newest_record("prod/eu-west", "team-a", "none"));
}

TEST_CASE("a record whose first line is no summary is named, and the others still list",
          "[history]") {
    StateHome home;
    REQUIRE(write_record(record_of("team-a", "bert", "uid-1", "2026-12-01T10:00:00Z")));
    const std::string folder = home.dir + "/kftrain/history/prod%2Feu-west/team-a/";
    kftrain::test::write_file(folder + "planted.x.jsonl", std::string(3, '\0') + "\n");
    auto listed = list_records({});
    CHECK(listed.records.size() == 1);
    REQUIRE(listed.unreadable.size() == 1);
    CHECK(contains(listed.unreadable[0], "planted.x.jsonl"));
    CHECK(read_record(folder + "planted.x.jsonl").error_value().code == 4);
    CHECK(read_record(folder + "gone.jsonl").error_value().code == 3);
}

TEST_CASE("a full disk while recording leaves the records as they were and says what was lost",
          "[history]") {
    StateHome home;
    REQUIRE(write_record(record_of("team-a", "bert", "uid-1", "2026-12-01T10:00:00Z")));
    Record big = record_of("team-a", "huge", "uid-2", "2026-12-02T10:00:00Z");
    big.logs[0].lines.assign(1000, std::string(1000, 'y'));
    // A file size limit fails the write as a full disk does, here and now.
    struct rlimit old {};
    ::getrlimit(RLIMIT_FSIZE, &old);
    auto* previous = ::signal(SIGXFSZ, SIG_IGN);
    struct rlimit small = old;
    small.rlim_cur = 64 * 1024;
    ::setrlimit(RLIMIT_FSIZE, &small);
    auto written = write_record(big);
    ::setrlimit(RLIMIT_FSIZE, &old);
    ::signal(SIGXFSZ, previous);
    REQUIRE(!written);
    CHECK(contains(written.error_value().message, "cannot keep the record of team-a/huge"));
    CHECK(files_in(home.dir) == 1);
    CHECK(list_records({}).records.size() == 1);
}

TEST_CASE("a partial record is replaced, once, by one written when every replica had ended",
          "[history]") {
    StateHome home;
    Record early = record_of("team-a", "bert", "uid-1", "2026-12-01T10:00:00Z");
    early.summary.partial = true;
    REQUIRE(write_record(early).value() == Written::Kept);
    const kftrain::history::RecordKey key{"prod/eu-west", "team-a", "bert", "uid-1"};
    CHECK(kftrain::history::has_record(key));
    CHECK_FALSE(kftrain::history::has_record(key, true));
    CHECK(write_record(early).value() == Written::AlreadyKept);  // partial over partial: no

    Record whole = early;
    whole.summary.partial = false;
    whole.logs.push_back(kftrain::history::keep_log("worker-0", false, {"rank 1 done"}));
    CHECK(write_record(whole).value() == Written::Kept);
    CHECK(kftrain::history::has_record(key, true));
    auto read = read_record(record_path(key));
    REQUIRE(read);
    CHECK(read->logs.size() == 2);
    CHECK(write_record(early).value() == Written::AlreadyKept);  // never back to partial
    CHECK(files_in(home.dir) == 1);
}
