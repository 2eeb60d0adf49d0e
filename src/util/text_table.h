#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace kftrain::util {

// Rows of text printed as aligned columns, kubectl style: upper-case headers,
// two spaces between columns, no padding after the last one.
class TextTable {
  public:
    // Start a table with these column headers.
    explicit TextTable(std::vector<std::string> headers);

    // Add a row; missing cells are empty, empty cells print as ""; control bytes (newlines
    // too) are shown escaped, as util::append_printable does.
    void add_row(std::vector<std::string> cells);

    // Print the headers and rows.
    void print(std::ostream& out) const;

  private:
    std::vector<std::vector<std::string>> m_rows;
};

}  // namespace kftrain::util
