#pragma once

#include <string>
#include <vector>

namespace kftrain::test {

// A terminal screen as a test reads it: text written to it with carriage return, newline,
// cursor up (ESC [ n A), erase line (ESC [ K) and erase below (ESC [ J) applied. Rows never
// wrap and never scroll away, so a test sees every line whole.
class Screen {
  public:
    // Apply the bytes a program wrote.
    void write(const std::string& bytes);
    // Return the rows, without the empty one the cursor sits on after a final newline.
    std::vector<std::string> lines() const;

  private:
    void control(char final, int count);
    void put(char c);

    std::vector<std::string> m_rows{""};
    size_t m_row = 0;
    size_t m_column = 0;
};

}  // namespace kftrain::test
