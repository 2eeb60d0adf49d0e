#include "backend/local/state/last_word.h"

#include <nlohmann/json.hpp>

#include "backend/local/state/state_dir.h"
#include "util/json_text.h"
#include "util/text.h"

namespace kftrain::backend::local {
namespace {

constexpr size_t k_max_text = 600;  // six fields of at most this fit the reserved size

std::string cut(const std::string& text) {
    return text.size() <= k_max_text ? text : text.substr(0, k_max_text) + "...";
}

}  // namespace

util::Status write_last_word(const std::string& job, const LastWord& word) {
    nlohmann::json doc{{"error", cut(word.error)},       {"phase", cut(word.phase)},
                       {"reason", cut(word.reason)},     {"message", cut(word.message)},
                       {"finished", cut(word.finished)}, {"logs_error", cut(word.logs_error)}};
    return util::write_in_place(last_word_path(job), util::json_text(doc));
}

std::optional<LastWord> read_last_word(const std::string& job) {
    auto text = state::read_state_file(last_word_path(job));
    if (!text || util::trim(*text).empty()) {
        return std::nullopt;
    }
    auto doc = util::parse_untrusted_json(*text);
    if (!doc.is_object()) {
        return std::nullopt;
    }
    LastWord word;
    for (auto [field, key] : {std::pair{&word.error, "error"},
                              {&word.phase, "phase"},
                              {&word.reason, "reason"},
                              {&word.message, "message"},
                              {&word.finished, "finished"},
                              {&word.logs_error, "logs_error"}}) {
        auto it = doc.find(key);
        if (it != doc.end() && it->is_string()) {
            *field = it->get<std::string>();
        }
    }
    return word;
}

}  // namespace kftrain::backend::local
