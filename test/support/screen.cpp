#include "support/screen.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>

namespace kftrain::test {

void Screen::control(char final, int count) {
    std::string& row = m_rows[m_row];
    switch (final) {
        case 'A':
            m_row -= std::min(m_row, static_cast<size_t>(std::max(count, 1)));
            break;
        case 'K':
            row.erase(std::min(m_column, row.size()));
            break;
        case 'J':
            row.erase(std::min(m_column, row.size()));
            m_rows.resize(m_row + 1);
            break;
        default:
            break;  // colours and the rest change no text
    }
}

void Screen::put(char c) {
    std::string& row = m_rows[m_row];
    if (row.size() < m_column) {
        row.resize(m_column, ' ');
    }
    if (m_column < row.size()) {
        row[m_column] = c;
    } else {
        row += c;
    }
    ++m_column;
}

void Screen::write(const std::string& bytes) {
    for (size_t i = 0; i < bytes.size(); ++i) {
        const char c = bytes[i];
        if (c == '\r') {
            m_column = 0;
        } else if (c == '\n') {
            m_column = 0;
            if (++m_row == m_rows.size()) {
                m_rows.emplace_back();
            }
        } else if (c == '\x1b' && i + 1 < bytes.size() && bytes[i + 1] == '[') {
            size_t end = i + 2;
            while (end < bytes.size() &&
                   (std::isdigit(static_cast<unsigned char>(bytes[end])) || bytes[end] == ';')) {
                ++end;
            }
            if (end == bytes.size()) {
                break;
            }
            const std::string digits = bytes.substr(i + 2, end - i - 2);
            control(bytes[end], digits.empty() ? 1 : std::atoi(digits.c_str()));
            i = end;
        } else {
            put(c);
        }
    }
}

std::vector<std::string> Screen::lines() const {
    std::vector<std::string> rows = m_rows;
    while (!rows.empty() && rows.back().empty()) {
        rows.pop_back();
    }
    return rows;
}

}  // namespace kftrain::test
