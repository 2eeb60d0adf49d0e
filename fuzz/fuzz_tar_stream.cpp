// Fuzz the tar stream reader that data get feeds with what a claim holds, and the plan for
// each member. Properties: the reader never crashes; a member's content never exceeds its
// size; every member it would write has a relative path with no "." or ".." part and
// permission bits only; and the events are the same whether the stream comes in one piece or
// in two, split anywhere.

#include <string>
#include <vector>

#include "fuzz_input.h"
#include "staging/member_plan.h"
#include "staging/tar_reader.h"

using namespace kftrain::staging;

namespace {

// Records what the reader passes on, and checks each member's plan.
class Recorder : public TarSink {
  public:
    kftrain::util::Status begin(const TarEntry& entry) override {
        m_left = entry.size;
        events += "begin:" + entry.name + "\n";
        const MemberPlan plan = plan_member(entry, false);
        using Action = MemberPlan::Action;
        if (plan.action == Action::file || plan.action == Action::directory ||
            plan.action == Action::hard_link) {
            check_path(plan.path);
            if (plan.mode > 0777) {
                kftrain::fuzz::fail("a member would be written with more than permission bits");
            }
        }
        if (plan.action == Action::hard_link) {
            check_path(plan.link);
        }
        return kftrain::util::ok_status();
    }
    kftrain::util::Status content(const char* /*data*/, size_t size) override {
        if (size > m_left) {
            kftrain::fuzz::fail("a member's content is longer than its size");
        }
        m_left -= size;
        events += "content:" + std::to_string(size) + "\n";
        return kftrain::util::ok_status();
    }
    kftrain::util::Status end() override {
        events += "end\n";
        return kftrain::util::ok_status();
    }

    std::string events;

  private:
    static void check_path(const std::string& path) {
        if (path.empty() || path[0] == '/') {
            kftrain::fuzz::fail("a member would be written at an empty or absolute path");
        }
        for (size_t start = 0; start <= path.size();) {
            size_t end = std::min(path.find('/', start), path.size());
            const std::string part = path.substr(start, end - start);
            if (part.empty() || part == "." || part == "..") {
                kftrain::fuzz::fail("a member's path has an empty, '.' or '..' part: " + path);
            }
            start = end + 1;
        }
    }

    uint64_t m_left = 0;
};

// The content events merged, so that pieces of one member compare equal however split.
std::string merged(const std::string& events) {
    std::string out;
    uint64_t pending = 0;
    size_t at = 0;
    while (at < events.size()) {
        size_t nl = events.find('\n', at);
        const std::string line = events.substr(at, nl - at);
        at = nl + 1;
        if (line.rfind("content:", 0) == 0) {
            pending += std::stoull(line.substr(8));
            continue;
        }
        if (pending > 0) {
            out += "content:" + std::to_string(pending) + "\n";
            pending = 0;
        }
        out += line + "\n";
    }
    return out;
}

std::string read_all(const std::string& bytes, size_t split, bool& ok) {
    Recorder recorder;
    TarReader reader(recorder);
    auto first = reader.feed(bytes.data(), split);
    auto second = first ? reader.feed(bytes.data() + split, bytes.size() - split) : first;
    ok = second && reader.finish();
    return merged(recorder.events) + (second ? "" : "error\n");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
    const std::string bytes(reinterpret_cast<const char*>(data), size);
    bool whole_ok = false;
    bool split_ok = false;
    const std::string whole = read_all(bytes, bytes.size(), whole_ok);
    const std::string split = read_all(bytes, bytes.size() / 3, split_ok);
    if (whole != split || whole_ok != split_ok) {
        kftrain::fuzz::fail("the stream reads differently when it comes in two pieces");
    }
    return 0;
}
