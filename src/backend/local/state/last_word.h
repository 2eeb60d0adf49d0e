#pragma once

#include <optional>
#include <string>

#include "util/result.h"

namespace kftrain::backend::local {

// What the supervisor could not save in state.json (a full disk, a failing file system):
// the error, and once the job has ended, its outcome. It lives in supervisor.json, whose
// space submit reserves, so the supervisor can write it when nothing else can be written;
// status reads it instead of calling a job that ended unsaved SupervisorLost.
struct LastWord {
    std::string error;  // "cannot write .../state.json: No space left on device"; "" once saved
    std::string phase;  // the job's final phase, when it ended unsaved; else ""
    std::string reason;
    std::string message;
    std::string finished;
    std::string logs_error;  // the first write to the job's logs that failed, or ""
};

// The bytes submit reserves for supervisor.json.
constexpr size_t k_last_word_size = 4096;

// Write a job's supervisor.json in its reserved space; long texts are cut to fit.
util::Status write_last_word(const std::string& job, const LastWord& word);

// Read a job's supervisor.json; nullopt when it is missing, blank or unreadable.
std::optional<LastWord> read_last_word(const std::string& job);

}  // namespace kftrain::backend::local
