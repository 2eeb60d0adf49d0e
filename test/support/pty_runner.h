#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

namespace kftrain::test {

// What a run of the built kftrain wrote to its terminal and how it ended.
struct PtyRun {
    int code = -1;
    std::string out;  // stdout and stderr as the terminal got them (newlines as \r\n)
};

// Run the built kftrain with stdout and stderr on a new pseudo-terminal `columns` wide, with
// these extra environment variables; after each read, call on_output with all read so far (to
// act once something appeared). Fails the test when it runs past a minute.
PtyRun run_kftrain_on_pty(const std::vector<std::string>& args,
                          const std::map<std::string, std::string>& env, unsigned short columns,
                          const std::function<void(const std::string&)>& on_output = {});

}  // namespace kftrain::test
