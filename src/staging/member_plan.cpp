#include "staging/member_plan.h"

#include <fmt/format.h>

#include "util/text.h"

namespace kftrain::staging {

std::string clean_member_path(const std::string& name, std::string& why) {
    why.clear();
    if (!name.empty() && name[0] == '/') {
        why = "an absolute path";
        return "";
    }
    std::string cleaned;
    size_t start = 0;
    while (start <= name.size()) {
        size_t end = std::min(name.find('/', start), name.size());
        std::string part = name.substr(start, end - start);
        start = end + 1;
        if (part.empty() || part == ".") {
            continue;
        }
        if (part == "..") {
            why = "a path with '..'";
            return "";
        }
        cleaned += (cleaned.empty() ? "" : "/") + part;
    }
    return cleaned;
}

MemberPlan plan_member(const TarEntry& entry, bool keep_symlinks) {
    MemberPlan plan;
    plan.mode = entry.mode & 0777;
    plan.path = clean_member_path(entry.name, plan.why);
    if (!plan.why.empty()) {
        return plan;  // skip
    }
    if (plan.path.empty()) {
        plan.action = MemberPlan::Action::ignore;
        return plan;
    }
    using Type = TarEntry::Type;
    switch (entry.type) {
        case Type::directory:
            plan.action = MemberPlan::Action::directory;
            return plan;
        case Type::file:
            plan.action = MemberPlan::Action::file;
            return plan;
        case Type::hard_link: {
            std::string why;
            plan.link = clean_member_path(entry.link, why);
            if (plan.link.empty()) {
                plan.why = "a hard link to a path outside the copy";
                return plan;
            }
            plan.action = MemberPlan::Action::hard_link;
            return plan;
        }
        case Type::symlink:
            if (!keep_symlinks) {
                plan.why = fmt::format("a symlink (to {}): kftrain copies no links out of a claim",
                                       util::escape_controls(entry.link));
                return plan;
            }
            plan.link = entry.link;
            plan.action = MemberPlan::Action::symlink;
            return plan;
        case Type::device:
            plan.why = "a device";
            return plan;
        case Type::fifo:
            plan.why = "a FIFO";
            return plan;
        case Type::other:
            break;
    }
    plan.why = entry.type_flag == 's' ? "a socket"
                                      : fmt::format("an unsupported tar entry (type '{}')",
                                                    entry.type_flag >= ' ' ? entry.type_flag : '?');
    return plan;
}

}  // namespace kftrain::staging
