#include "manifest/k8s/expansion.h"

namespace kftrain::manifest {

std::string expand_references(const std::string& text,
                              const std::map<std::string, std::string>& env) {
    std::string out;
    size_t checkpoint = 0;
    for (size_t cursor = 0; cursor < text.size(); ++cursor) {
        if (text[cursor] != '$' || cursor + 1 >= text.size()) {
            continue;
        }
        out.append(text, checkpoint, cursor - checkpoint);
        const char next = text[cursor + 1];
        size_t advance = 1;
        if (next == '$') {
            out += '$';  // an escaped $
        } else if (next == '(') {
            const size_t close = text.find(')', cursor + 2);
            if (close == std::string::npos) {
                out += "$(";  // an unclosed reference stays as written
            } else {
                const std::string name = text.substr(cursor + 2, close - cursor - 2);
                auto it = env.find(name);
                out += it != env.end() ? it->second : "$(" + name + ")";
                advance = close - cursor;
            }
        } else {
            out += '$';
            out += next;
        }
        cursor += advance;
        checkpoint = cursor + 1;
    }
    out.append(text, checkpoint, std::string::npos);
    return out;
}

}  // namespace kftrain::manifest
