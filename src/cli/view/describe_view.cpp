#include "cli/view/describe_view.h"

#include <fmt/format.h>

#include <algorithm>
#include <string>
#include <vector>

#include "cli/view/status_view.h"
#include "util/text.h"
#include "util/text_table.h"

namespace kftrain::cli::view {
namespace {

// The column of "Label:" in status -o wide, which describe's fields line up with.
constexpr std::size_t k_summary_label_width = 11;

// Return the width of "Label:" for the fields of one level: the longest label but a heading's.
std::size_t label_width(const std::vector<job::DescribeField>& fields, std::size_t at_least) {
    std::size_t width = at_least;
    for (const auto& field : fields) {
        if (!field.heading && !field.label.empty()) {
            width = std::max(width, field.label.size() + 1);
        }
    }
    return width;
}

void print_fields(std::ostream& out, const std::vector<job::DescribeField>& fields,
                  std::size_t indent, std::size_t at_least) {
    const std::size_t width = label_width(fields, at_least);
    const std::string pad(indent, ' ');
    for (const auto& field : fields) {
        const std::string value = util::escape_line(field.value);
        if (field.heading) {
            out << pad << util::escape_line(field.label) << ":"
                << (value.empty() ? "" : " " + value) << "\n";
            print_fields(out, field.entries, indent + 2, 0);
        } else if (field.label.empty()) {
            out << pad << value << "\n";
        } else {
            out << pad
                << fmt::format("{:<{}} {}", util::escape_line(field.label) + ":", width, value)
                << "\n";
        }
    }
}

void print_table(std::ostream& out, const job::DescribeTable& table) {
    if (table.rows.empty()) {
        out << table.title << ": " << table.when_empty << "\n";
        return;
    }
    out << table.title << ":\n";
    util::TextTable text(table.headers);
    for (const auto& row : table.rows) {
        text.add_row(row);
    }
    text.print(out);
}

}  // namespace

void print_description(std::ostream& out, const job::JobDescription& description, std::time_t now,
                       ReplicaRows rows) {
    bool printed = false;
    if (description.summary) {
        print_status(out, *description.summary, OutputFormat::Wide, now, nullptr, rows);
        printed = true;
    }
    const std::size_t at_least = printed ? k_summary_label_width : 0;
    for (const auto& part : description.parts) {
        if (printed) {
            out << "\n";
        }
        print_fields(out, part.fields, 0, at_least);
        if (part.table) {
            print_table(out, *part.table);
        }
        printed = true;
    }
}

}  // namespace kftrain::cli::view
