#include "manifest/yaml/input.h"

#include <fmt/format.h>
#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/parser.h>

#include <algorithm>
#include <map>
#include <sstream>
#include <vector>

#include "util/text.h"

namespace kftrain::manifest {
namespace {

// Documents a text may hold before kftrain stops reading: it takes one, and trailing '---'
// lines add empty ones.
constexpr std::size_t k_max_documents = 64;

// An event handler that ignores every event: for counting documents.
class IgnoreEvents : public YAML::EventHandler {
  public:
    void OnDocumentStart(const YAML::Mark&) override {}
    void OnDocumentEnd() override {}
    void OnNull(const YAML::Mark&, YAML::anchor_t) override {}
    void OnAlias(const YAML::Mark&, YAML::anchor_t) override {}
    void OnScalar(const YAML::Mark&, const std::string&, YAML::anchor_t,
                  const std::string&) override {}
    void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t,
                         YAML::EmitterStyle::value) override {}
    void OnSequenceEnd() override {}
    void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t,
                    YAML::EmitterStyle::value) override {}
    void OnMapEnd() override {}
};

// Check that the text holds a bounded number of documents before YAML::LoadAll reads it:
// yaml-cpp 0.7 reports empty documents forever on a ',' where a document should start
// (jbeder/yaml-cpp#1040), and LoadAll would ask for them until memory ran out.
util::Status check_document_count(const std::string& text, const std::string& name) {
    std::istringstream in(text);
    YAML::Parser parser(in);
    IgnoreEvents events;
    for (std::size_t documents = 0; parser.HandleNextDocument(events);) {
        if (++documents > k_max_documents) {
            return util::error(fmt::format(
                "{}: invalid YAML: more than {} documents (a ',' where a document or a key "
                "should start?); kftrain reads one",
                name, k_max_documents));
        }
    }
    return util::ok_status();
}

const char* node_kind(const YAML::Node& node) {
    if (node.IsSequence()) {
        return "a list";
    }
    if (node.IsMap()) {
        return "a map";
    }
    return "nothing";
}

// Walks a parsed document once, stopping at the first thing later code must not meet.
class Checker {
  public:
    explicit Checker(const std::string& name) : m_name(name) {}

    util::Status check(const YAML::Node& node, int depth) {
        if (depth > k_max_yaml_depth) {
            return fail(node, fmt::format("nested deeper than {} levels (a recursive alias?)",
                                          k_max_yaml_depth));
        }
        if (++m_values > k_max_yaml_values) {
            return util::error(
                fmt::format("{}: more than {} values (an alias bomb?); a job file "
                            "holds a few hundred",
                            m_name, k_max_yaml_values));
        }
        if (node.IsSequence()) {
            for (const auto& item : node) {
                if (auto ok = check(item, depth + 1); !ok) {
                    return ok;
                }
            }
        } else if (node.IsMap()) {
            return check_map(node, depth);
        }
        return util::ok_status();
    }

  private:
    util::Status check_map(const YAML::Node& node, int depth) {
        std::map<std::string, int> seen;
        for (const auto& entry : node) {
            if (!entry.first.IsScalar()) {
                return fail(entry.first, fmt::format("a key must be a plain string (got {})",
                                                     node_kind(entry.first)));
            }
            const std::string& key = entry.first.Scalar();
            const int line = entry.first.Mark().line + 1;
            auto [first, inserted] = seen.emplace(key, line);
            if (!inserted) {
                return fail(entry.first, fmt::format("{}: duplicate key (first at line {})", key,
                                                     first->second));
            }
            if (auto ok = check(entry.second, depth + 1); !ok) {
                return ok;
            }
        }
        return util::ok_status();
    }

    util::Status fail(const YAML::Node& at, const std::string& what) const {
        return util::error(fmt::format("{}:{}: {}", m_name, at.Mark().line + 1, what));
    }

    const std::string& m_name;
    std::size_t m_values = 0;
};

void append_utf8(std::string& out, uint32_t code) {
    if (code < 0x80) {
        out += static_cast<char>(code);
    } else if (code < 0x800) {
        out += static_cast<char>(0xc0 | (code >> 6));
        out += static_cast<char>(0x80 | (code & 0x3f));
    } else if (code < 0x10000) {
        out += static_cast<char>(0xe0 | (code >> 12));
        out += static_cast<char>(0x80 | ((code >> 6) & 0x3f));
        out += static_cast<char>(0x80 | (code & 0x3f));
    } else {
        out += static_cast<char>(0xf0 | (code >> 18));
        out += static_cast<char>(0x80 | ((code >> 12) & 0x3f));
        out += static_cast<char>(0x80 | ((code >> 6) & 0x3f));
        out += static_cast<char>(0x80 | (code & 0x3f));
    }
}

// Text in UTF-16 or UTF-32 with a byte order mark (YAML 1.2 allows both, as editors on
// Windows save them) as UTF-8; UTF-8 with its mark without it; anything else as it is.
util::Result<std::string> as_utf8(const std::string& text, const std::string& name) {
    auto starts = [&text](const char* mark, std::size_t size) {
        return text.size() >= size && text.compare(0, size, mark, size) == 0;
    };
    if (starts("\xef\xbb\xbf", 3)) {
        return text.substr(3);
    }
    std::size_t width = 0;
    bool big = false;
    if (starts("\x00\x00\xfe\xff", 4) || starts("\xff\xfe\x00\x00", 4)) {
        width = 4;
        big = text[0] == '\0';
    } else if (starts("\xfe\xff", 2) || starts("\xff\xfe", 2)) {
        width = 2;
        big = text[0] == '\xfe';
    } else {
        return text;
    }
    auto unit = [&](std::size_t at) {
        uint32_t value = 0;
        for (std::size_t i = 0; i < width; ++i) {
            const auto byte = static_cast<unsigned char>(text[at + (big ? i : width - 1 - i)]);
            value = (value << 8) | byte;
        }
        return value;
    };
    const auto bad = util::error(
        fmt::format("{}: is not valid UTF-{} text after its byte order mark (save it as UTF-8)",
                    name, width * 8));
    std::string out;
    for (std::size_t at = width; at < text.size(); at += width) {
        if (at + width > text.size()) {
            return bad;
        }
        uint32_t code = unit(at);
        if (width == 2 && code >= 0xd800 && code < 0xdc00 && at + 4 <= text.size()) {
            const uint32_t low = unit(at + 2);
            if (low < 0xdc00 || low >= 0xe000) {
                return bad;
            }
            code = 0x10000 + ((code - 0xd800) << 10) + (low - 0xdc00);
            at += 2;
        } else if ((code >= 0xd800 && code < 0xe000) || code > 0x10ffff) {
            return bad;
        }
        append_utf8(out, code);
    }
    return out;
}

}  // namespace

util::Result<YAML::Node> parse_yaml(const std::string& raw, const std::string& name) {
    if (raw.size() > k_max_input_bytes) {
        return util::error(
            fmt::format("{}: larger than {} KiB; kftrain reads job files, "
                        "templates and catalogs of a few KiB",
                        name, k_max_input_bytes / 1024));
    }
    auto decoded = as_utf8(raw, name);
    if (!decoded) {
        return decoded.error_value();
    }
    const std::string& text = *decoded;
    // YAML is text: no control bytes but tab, LF and CR (NUL made yaml-cpp report an escape
    // on the wrong line, and a binary file printed its bytes back).
    for (std::size_t i = 0; i < text.size(); ++i) {
        const auto byte = static_cast<unsigned char>(text[i]);
        if ((byte < 0x20 && byte != '\t' && byte != '\n' && byte != '\r') || byte == 0x7f) {
            const auto line = std::count(text.begin(), text.begin() + i, '\n') + 1;
            std::string shown;
            util::append_printable(shown, byte);
            return util::error(
                fmt::format("{}:{}: is not a text file: it holds the byte {} (a "
                            "job file is YAML text)",
                            name, line, shown));
        }
    }
    std::vector<YAML::Node> documents;
    try {
        if (auto bounded = check_document_count(text, name); !bounded) {
            return bounded.error_value();
        }
        documents = YAML::LoadAll(text);
    } catch (const YAML::Exception& e) {
        return util::error(fmt::format("{}:{}: invalid YAML: {}", name, e.mark.line + 1, e.msg));
    }
    // A stray '---' at the end (as kubectl users write) adds an empty document: not one.
    documents.erase(std::remove_if(documents.begin(), documents.end(),
                                   [](const YAML::Node& doc) { return doc.IsNull(); }),
                    documents.end());
    if (documents.empty()) {
        return YAML::Node();
    }
    if (documents.size() > 1) {
        return util::error(fmt::format(
            "{}: holds {} YAML documents; kftrain reads one (remove what follows the first "
            "'---')",
            name, documents.size()));
    }
    Checker checker(name);
    if (auto ok = checker.check(documents.front(), 0); !ok) {
        return ok.error_value();
    }
    return documents.front();
}

}  // namespace kftrain::manifest
