#include "usage/process_tree.h"

#include <vector>

namespace kftrain::usage {

std::set<long long> process_tree(const ProcessTable& table, long long root) {
    std::set<long long> tree;
    if (table.count(root) == 0) {
        return tree;
    }
    std::multimap<long long, long long> children;  // parent -> child
    for (const auto& [pid, stat] : table) {
        children.emplace(stat.parent, pid);
    }
    std::vector<long long> todo = {root};
    while (!todo.empty()) {
        const long long pid = todo.back();
        todo.pop_back();
        if (!tree.insert(pid).second) {
            continue;  // seen: a loop of parents cannot count a process twice
        }
        const auto [first, last] = children.equal_range(pid);
        for (auto it = first; it != last; ++it) {
            todo.push_back(it->second);
        }
    }
    return tree;
}

double tree_resident_bytes(const ProcessTable& table, long long root, long long page_bytes) {
    double bytes = 0;
    for (long long pid : process_tree(table, root)) {
        bytes += static_cast<double>(table.at(pid).rss_pages) * static_cast<double>(page_bytes);
    }
    return bytes;
}

double tree_cpu_cores(const ProcessTable& before, const ProcessTable& after, long long root,
                      double ticks_per_second, double interval_s) {
    if (ticks_per_second <= 0 || interval_s <= 0) {
        return 0;
    }
    double ticks = 0;
    for (long long pid : process_tree(after, root)) {
        const util::ProcStat& now = after.at(pid);
        auto then = before.find(pid);
        const bool same = then != before.end() && then->second.start_ticks == now.start_ticks;
        if (same && now.cpu_ticks >= then->second.cpu_ticks) {
            ticks += static_cast<double>(now.cpu_ticks - then->second.cpu_ticks);
        } else if (!same) {
            ticks += static_cast<double>(now.cpu_ticks);  // started since the first reading
        }
    }
    return ticks / ticks_per_second / interval_s;
}

}  // namespace kftrain::usage
