#pragma once

#include <cstddef>
#include <optional>
#include <ostream>

namespace kftrain::util {

// Return whether stream is this process's stdout or stderr and that is a terminal which takes
// cursor movement: not a pipe or file, and TERM is not "dumb".
bool is_live_terminal(const std::ostream& stream);

// Return the width of the terminal stream writes to: TIOCGWINSZ, else $COLUMNS, else 80.
size_t terminal_width(const std::ostream& stream);

// Choose a terminal width from what the terminal reports (0 or nullopt: nothing) and the
// value of $COLUMNS (nullptr: unset): the first that is a positive number, else 80.
size_t choose_width(std::optional<size_t> reported, const char* columns);

}  // namespace kftrain::util
