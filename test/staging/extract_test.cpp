// What `data get` lays down from a claim's tar stream (TarReader into TreeSink): only files and
// directories, inside OUT_DIR, without setuid bits, the archive's own "." never applied, and
// nothing replaced without --force. The archives are made byte by byte, as a hostile claim could.
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "staging/member_plan.h"
#include "staging/tar_reader.h"
#include "staging/tree_copy.h"
#include "staging/tree_writer.h"
#include "support/files.h"

namespace {

namespace fs = std::filesystem;
using kftrain::staging::clean_member_path;
using kftrain::staging::TarReader;
using kftrain::staging::TreeSink;
using kftrain::staging::TreeWriter;
using kftrain::test::make_temp_dir;
using kftrain::test::mode_of;
using kftrain::test::read_bytes;

// One member: a ustar header (checksum computed) and its content padded to 512 bytes.
std::string tar_member(const std::string& name, char type, unsigned mode,
                       const std::string& content, const std::string& link = "") {
    std::string header(512, '\0');
    header.replace(0, std::min<size_t>(name.size(), 100), name.substr(0, 100));
    std::snprintf(&header[100], 8, "%07o", mode);
    std::snprintf(&header[108], 8, "%07o", 0u);
    std::snprintf(&header[116], 8, "%07o", 0u);
    std::snprintf(&header[124], 12, "%011o", static_cast<unsigned>(content.size()));
    std::snprintf(&header[136], 12, "%011o", 1700000000u);
    header[156] = type;
    header.replace(157, link.size(), link);
    header.replace(257, 6, std::string("ustar\0", 6));
    header.replace(263, 2, "00");
    header.replace(148, 8, "        ");
    unsigned sum = 0;
    for (unsigned char c : header) {
        sum += c;
    }
    std::snprintf(&header[148], 8, "%06o", sum);
    std::string padded = content;
    padded.resize((content.size() + 511) / 512 * 512, '\0');
    return header + padded;
}

std::string archive_end() {
    return std::string(1024, '\0');
}

struct Extracted {
    kftrain::util::Status status = kftrain::util::ok_status();
    std::string warnings;
    size_t files = 0;
};

// Feed archive to a TreeSink writing under out, in pieces of `piece` bytes.
Extracted extract(const std::string& archive, const std::string& out, bool force = false,
                  size_t piece = 100) {
    auto writer = TreeWriter::open(out, force);
    REQUIRE(writer);
    std::ostringstream warn;
    TreeSink sink(*writer, false, warn);
    TarReader reader(sink);
    Extracted result;
    for (size_t at = 0; at < archive.size() && result.status; at += piece) {
        result.status = reader.feed(archive.data() + at, std::min(piece, archive.size() - at));
    }
    if (result.status) {
        result.status = reader.finish();
    }
    result.warnings = warn.str();
    result.files = sink.report().files;
    return result;
}

}  // namespace

TEST_CASE("A claim's archive cannot give root a setuid file, a device or a FIFO", "[data]") {
    const std::string out = make_temp_dir();
    ::umask(022);
    auto done =
        extract(tar_member("./", '5', 0777, "") + tar_member("./bin/", '5', 0755, "") +
                    tar_member("./bin/sh", '0', 04755, "#!/bin/sh\n") +
                    tar_member("./bin/g", '0', 02777, "g") + tar_member("./null", '3', 0666, "") +
                    tar_member("./disk", '4', 0660, "") + tar_member("./pipe", '6', 0666, "") +
                    archive_end(),
                out);
    INFO(done.warnings);
    REQUIRE(done.status);
    CHECK((mode_of(out + "/bin/sh") & 07777) == 0755);
    CHECK((mode_of(out + "/bin/g") & 07777) == 0755);
    CHECK(read_bytes(out + "/bin/sh") == "#!/bin/sh\n");
    CHECK_FALSE(fs::exists(out + "/null"));
    CHECK_FALSE(fs::exists(out + "/disk"));
    CHECK_FALSE(fs::exists(out + "/pipe"));
    CHECK(done.warnings.find("skipped ./null: a device") != std::string::npos);
    CHECK(done.warnings.find("skipped ./pipe: a FIFO") != std::string::npos);
    // The archive's "." (mode 0777) is never applied to OUT_DIR.
    CHECK((mode_of(out) & 0777) == 0700);
}

TEST_CASE("A claim's archive writes nothing outside OUT_DIR", "[data]") {
    const std::string base = make_temp_dir();
    const std::string out = base + "/out";
    fs::create_directories(out);
    fs::create_directories(base + "/elsewhere");
    auto done =
        extract(tar_member("/etc/evil", '0', 0644, "x") + tar_member("../escaped", '0', 0644, "x") +
                    tar_member("a/../../escaped", '0', 0644, "x") +
                    tar_member("link", '2', 0777, "", base + "/elsewhere") +
                    tar_member("link/through", '0', 0644, "x") + archive_end(),
                out);
    INFO(done.warnings);
    CHECK_FALSE(fs::exists(base + "/escaped"));
    CHECK_FALSE(fs::exists(base + "/elsewhere/through"));
    CHECK_FALSE(fs::is_symlink(out + "/link"));
    CHECK(done.warnings.find("skipped /etc/evil: an absolute path") != std::string::npos);
    CHECK(done.warnings.find("skipped ../escaped: a path with '..'") != std::string::npos);
    CHECK(done.warnings.find("skipped link: a symlink") != std::string::npos);
    CHECK(done.status);  // link/through went into a directory of its own
    CHECK(read_bytes(out + "/link/through") == "x");
}

TEST_CASE("An existing symlink in OUT_DIR is never written through", "[data]") {
    const std::string base = make_temp_dir();
    const std::string out = base + "/out";
    fs::create_directories(out);
    fs::create_directories(base + "/elsewhere");
    fs::create_symlink(base + "/elsewhere", out + "/data");
    kftrain::test::write_file(base + "/victim", "keep");
    fs::create_symlink(base + "/victim", out + "/file");
    auto through = extract(tar_member("data/x", '0', 0644, "x") + archive_end(), out, true);
    CHECK_FALSE(through.status);
    CHECK(through.status.error().find("/out/data is a symlink") != std::string::npos);
    CHECK(fs::is_empty(base + "/elsewhere"));
    // --force replaces the link itself, not what it points at.
    auto replaced = extract(tar_member("file", '0', 0644, "new") + archive_end(), out, true);
    REQUIRE(replaced.status);
    CHECK(read_bytes(base + "/victim") == "keep");
    CHECK(read_bytes(out + "/file") == "new");
    CHECK_FALSE(fs::is_symlink(out + "/file"));
}

TEST_CASE("An existing file is replaced only with --force", "[data]") {
    const std::string out = make_temp_dir();
    kftrain::test::write_file(out + "/model.pt", "mine");
    auto refused = extract(tar_member("./model.pt", '0', 0644, "theirs") + archive_end(), out);
    REQUIRE_FALSE(refused.status);
    CHECK(refused.status.error().find("model.pt exists: give --force") != std::string::npos);
    CHECK(refused.status.error_code(0) == 2);
    CHECK(read_bytes(out + "/model.pt") == "mine");
    auto forced = extract(tar_member("./model.pt", '0', 0644, "theirs") + archive_end(), out, true);
    REQUIRE(forced.status);
    CHECK(read_bytes(out + "/model.pt") == "theirs");
}

TEST_CASE("Long names, pax paths and hard links come through as GNU tar writes them", "[data]") {
    const std::string out = make_temp_dir();
    const std::string long_name = std::string(150, 'a') + "/" + std::string(120, 'b');
    const std::string pax_name = "pax/" + std::string(200, 'c');
    const std::string record = "path=" + pax_name + "\n";
    const std::string pax = std::to_string(record.size() + 4) + " " + record;
    REQUIRE(pax.size() == record.size() + 4);  // a 3-digit length, its space and the record
    auto done = extract(
        tar_member("././@LongLink", 'L', 0644, long_name + std::string(1, '\0')) +
            tar_member("cut", '0', 0644, "long") + tar_member("PaxHeaders/x", 'x', 0644, pax) +
            tar_member("cut2", '0', 0644, "pax") + tar_member("plain", '0', 0644, "p") +
            tar_member("again", '1', 0644, "", "./plain") + archive_end(),
        out, false, 7);
    INFO(done.warnings);
    REQUIRE(done.status);
    CHECK(read_bytes(out + "/" + long_name) == "long");
    CHECK(read_bytes(out + "/" + pax_name) == "pax");
    CHECK(read_bytes(out + "/again") == "p");
    CHECK(done.files == 4);
}

TEST_CASE("A damaged or cut archive is an error, not a partial success", "[data]") {
    const std::string out = make_temp_dir();
    std::string bad = tar_member("a", '0', 0644, "x");
    bad[0] = 'b';  // the checksum no longer matches
    CHECK(extract(bad + archive_end(), out).status.error().find("checksum") != std::string::npos);
    std::string cut = tar_member("big", '0', 0644, std::string(5000, 'x'));
    auto truncated = extract(cut.substr(0, 2000), out);
    REQUIRE_FALSE(truncated.status);
    CHECK(truncated.status.error().find("cut short") != std::string::npos);
    // The member cut short leaves nothing: no file under its name, no partial one beside it.
    CHECK(fs::is_empty(out));
    // Cut between two members, or before the first: every member whole, but no end marker.
    const std::string three = tar_member("one", '0', 0644, "1") +
                              tar_member("two", '0', 0644, "2") +
                              tar_member("three", '0', 0644, "3");
    const std::string between = make_temp_dir();
    auto cut_between = extract(three.substr(0, 2 * 1024), between);
    REQUIRE_FALSE(cut_between.status);
    CHECK(cut_between.status.error() ==
          "the archive ended without its end marker: the copy was cut short");
    CHECK_FALSE(extract("", make_temp_dir()).status);
    // Whole, with its marker: all three, and only they.
    const std::string whole = make_temp_dir();
    REQUIRE(extract(three + archive_end(), whole).status);
    CHECK(read_bytes(whole + "/three") == "3");
    CHECK(std::distance(fs::directory_iterator(whole), fs::directory_iterator()) == 3);
}

TEST_CASE("Member names are cleaned to paths inside the copy", "[data]") {
    std::string why;
    CHECK(clean_member_path("./a//b/./c", why) == "a/b/c");
    CHECK(why.empty());
    CHECK(clean_member_path("./", why).empty());
    CHECK(why.empty());
    CHECK(clean_member_path("a/../b", why).empty());
    CHECK(why == "a path with '..'");
    CHECK(clean_member_path("/abs", why).empty());
    CHECK(why == "an absolute path");
}
