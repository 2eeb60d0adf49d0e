// Text kftrain did not write (cluster messages, claim file names, job and trial names a
// hostile kubectl could return) is printed with its control bytes escaped, so an escape
// sequence in it cannot drive the terminal, and a newline cannot forge a row.
#include <catch2/catch.hpp>
#include <sstream>

#include "cli/completion/candidates.h"
#include "cli/view/field_text.h"
#include "util/text_table.h"

using kftrain::cli::completion::Completion;
using kftrain::cli::completion::format_completion;
using kftrain::cli::view::print_field;
using kftrain::util::TextTable;

TEST_CASE("table cells show control bytes escaped, on one row", "[view]") {
    TextTable table({"NAME", "MESSAGE"});
    table.add_row({"job\x1b[2J", "line one\nFAKE  row"});
    std::ostringstream out;
    table.print(out);
    CHECK(out.str() ==
          "NAME        MESSAGE\n"
          "job\\x1b[2J  line one\\x0aFAKE  row\n");
}

TEST_CASE("describe-style fields show control bytes escaped", "[view]") {
    std::ostringstream out;
    print_field(out, "Message", "quota \x1b]0;owned\x07 exceeded");
    CHECK(out.str() == "Message:    quota \\x1b]0;owned\\x07 exceeded\n");
    // A pod's message cannot forge a field line of its own, nor a C1 CSI reach the terminal.
    std::ostringstream forged;
    print_field(forged, "Why",
                "ImagePull\nCause:      image-pull: FORGED \xc2\x9b"
                "2J");
    CHECK(forged.str() == "Why:        ImagePull\\x0aCause:      image-pull: FORGED \\u009b2J\n");
}

TEST_CASE("completion leaves out names with control bytes and escapes descriptions", "[cli]") {
    Completion completion;
    completion.candidates = {{"good-job", "Running \x1b[31m"}, {"bad\x1b[2J", "x"}};
    CHECK(format_completion(completion) == "good-job\tRunning \\x1b[31m\n:4\n");
}
