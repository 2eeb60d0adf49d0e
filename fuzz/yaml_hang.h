#pragma once

// The yaml-cpp 0.7 hang the fuzz targets found (fuzz/known/yaml-cpp-comma-hang/): on a ','
// where a document's next node would start (",", "--- ,", "  a: 1\n ,"), YAML::LoadAll never
// returns: the parser reports an empty document each time it is asked for the next one, and
// LoadAll asks forever, allocating as it goes (jbeder/yaml-cpp#1040, fixed upstream by #1319).
// manifest::parse_yaml calls LoadAll, so the targets skip such inputs until it no longer
// does, and the bounded runs keep looking for other findings.

#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/exceptions.h>
#include <yaml-cpp/parser.h>

#include <sstream>
#include <string>

namespace kftrain::fuzz {

// An event handler that ignores every event: only the number of documents matters.
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

// Return whether YAML::LoadAll would never return on text: the parser still reports
// documents after more than a text of this size can hold (each needs at least "---").
inline bool yaml_cpp_hangs_on(const std::string& text) {
    std::istringstream in(text);
    YAML::Parser parser(in);
    IgnoreEvents events;
    const std::size_t most = text.size() / 3 + 2;
    try {
        for (std::size_t documents = 0; parser.HandleNextDocument(events); ++documents) {
            if (documents > most) {
                return true;
            }
        }
    } catch (const YAML::Exception&) {
        return false;
    }
    return false;
}

}  // namespace kftrain::fuzz
