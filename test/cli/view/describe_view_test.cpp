// describe's layout: what a backend says of a job, as the view prints it.
#include "cli/view/describe_view.h"

#include <catch2/catch.hpp>
#include <sstream>

using kftrain::job::DescribeField;
using kftrain::job::DescribePart;
using kftrain::job::DescribeTable;
using kftrain::job::JobDescription;

namespace {

std::string printed(const JobDescription& description) {
    std::ostringstream out;
    kftrain::cli::view::print_description(out, description, 0);
    return out.str();
}

}  // namespace

TEST_CASE("describe lines labels up in one column and indents each heading's entries",
          "[view][describe]") {
    auto replica =
        DescribeField::heading_of("master-0", {{"State", "Running"}, {"Exit code", "-"}});
    replica.entries.push_back(DescribeField::heading_of("Environment", {{"", "WORLD_SIZE=2"}}));
    JobDescription description;
    description.parts.push_back({{{"Name", "mnist"},
                                  {"State directory", "/tmp/s"},
                                  DescribeField::heading_of("Replicas", {replica})},
                                 std::nullopt});
    CHECK(printed(description) ==
          "Name:            mnist\n"
          "State directory: /tmp/s\n"
          "Replicas:\n"
          "  master-0:\n"
          "    State:     Running\n"
          "    Exit code: -\n"
          "    Environment:\n"
          "      WORLD_SIZE=2\n");
}

TEST_CASE("describe prints tables a blank line apart, and what a table without rows stands for",
          "[view][describe]") {
    JobDescription description;
    description.parts.push_back({{{"Runtime", "ClusterTrainingRuntime/torch"}}, std::nullopt});
    description.parts.push_back({{}, DescribeTable{"Conditions", {"TYPE", "STATUS"}}});
    DescribeTable events("Events", {"TYPE", "REASON"});
    events.rows.push_back({"Normal", "Created"});
    description.parts.push_back({{}, events});
    CHECK(printed(description) ==
          "Runtime: ClusterTrainingRuntime/torch\n"
          "\nConditions: none\n"
          "\nEvents:\n"
          "TYPE    REASON\n"
          "Normal  Created\n");
}

TEST_CASE("describe shows a value or cell from a program as one line, its controls escaped",
          "[view][describe][untrusted]") {
    JobDescription description;
    DescribeTable events("Events", {"MESSAGE"});
    events.rows.push_back({"pulled\nWarning  Forged"});
    description.parts.push_back({{{"Why", "oom\nCause: forged\x1b[2J"}}, events});
    const std::string out = printed(description);
    CHECK(out.find("\nCause:") == std::string::npos);
    CHECK(out.find("\nWarning") == std::string::npos);
    CHECK(out.find('\x1b') == std::string::npos);
    CHECK(out.rfind("Why: oom\\x0aCause: forged", 0) == 0);
}
