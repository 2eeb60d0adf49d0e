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

    // A table of this many columns that prints no header line.
    static TextTable without_headers(std::size_t columns);

    // Add a row; missing cells are empty; control bytes (newlines too) are shown escaped, as
    // util::escape_line does.
    void add_row(std::vector<std::string> cells);

    // Print the headers and rows.
    void print(std::ostream& out) const;

    // The headers and rows as print() writes them.
    std::string str() const;

  private:
    std::vector<std::vector<std::string>> m_rows;
    bool m_headers = true;
};

}  // namespace kftrain::util
