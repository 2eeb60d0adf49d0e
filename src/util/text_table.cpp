#include "util/text_table.h"

#include <algorithm>
#include <sstream>

#include "util/text.h"

namespace kftrain::util {

TextTable::TextTable(std::vector<std::string> headers) {
    m_rows.push_back(std::move(headers));
}

TextTable TextTable::without_headers(std::size_t columns) {
    TextTable table{std::vector<std::string>(columns)};
    table.m_headers = false;
    return table;
}

void TextTable::add_row(std::vector<std::string> cells) {
    cells.resize(m_rows.front().size());
    for (auto& cell : cells) {
        // Cells hold what the cluster and programs wrote: a control byte must not reach the
        // terminal as a command, nor a newline break the row.
        if (util::has_controls(cell)) {
            cell = util::escape_line(cell);
        }
    }
    m_rows.push_back(std::move(cells));
}

void TextTable::print(std::ostream& out) const {
    size_t columns = m_rows.front().size();
    std::vector<size_t> widths(columns, 0);
    for (const auto& row : m_rows) {
        for (size_t c = 0; c < columns; ++c) {
            widths[c] = std::max(widths[c], row[c].size());
        }
    }
    for (auto row = m_rows.begin() + (m_headers ? 0 : 1); row != m_rows.end(); ++row) {
        std::string line;
        for (size_t c = 0; c < columns; ++c) {
            line += (*row)[c];
            if (c + 1 < columns) {
                line.append(widths[c] - (*row)[c].size() + 2, ' ');
            }
        }
        line.erase(line.find_last_not_of(' ') + 1);
        out << line << "\n";
    }
}

std::string TextTable::str() const {
    std::ostringstream out;
    print(out);
    return out.str();
}

}  // namespace kftrain::util
