#pragma once

// describe's account of a job as data: what a backend has to say, which the command line's view
// lays out (labels in a column, tables, untrusted text escaped), and the same facts as one
// document for describe -o json|yaml.

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "job/status.h"

namespace kftrain::job {

// "Label: value", or a heading ("Replicas:") whose entries follow it, indented. An empty label
// shows the value alone (an environment entry, NAME=value).
struct DescribeField {
    DescribeField(std::string label_, std::string value_)
        : label(std::move(label_)), value(std::move(value_)) {}
    static DescribeField heading_of(std::string label, std::vector<DescribeField> entries = {}) {
        DescribeField field(std::move(label), "");
        field.heading = true;
        field.entries = std::move(entries);
        return field;
    }

    std::string label;
    std::string value;
    bool heading = false;
    std::vector<DescribeField> entries;
};

// A titled table; with no rows, "Title: when_empty" in its place.
struct DescribeTable {
    DescribeTable(std::string title_, std::vector<std::string> headers_,
                  std::string when_empty_ = "none")
        : title(std::move(title_)),
          headers(std::move(headers_)),
          when_empty(std::move(when_empty_)) {}

    std::string title;
    std::vector<std::string> headers;
    std::vector<std::vector<std::string>> rows;
    std::string when_empty;
};

// One block of the account, fields or a table; blocks are shown a blank line apart.
struct DescribePart {
    std::vector<DescribeField> fields;
    std::optional<DescribeTable> table;
};

// A job's longer account, read once.
struct JobDescription {
    std::optional<JobStatus> summary;  // where set, shown first as `status -o wide` shows it
    std::vector<DescribePart> parts;   // the rest of the account, after the summary
    nlohmann::json data;               // the status -o json document, conditions, events, ...
};

}  // namespace kftrain::job
