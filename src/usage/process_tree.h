#pragma once

#include <map>
#include <set>

#include "util/proc_stat.h"

namespace kftrain::usage {

// One reading of /proc: every process by pid (util::read_all_proc_stats).
using ProcessTable = std::map<long long, util::ProcStat>;

// Return a process and all its descendants in a reading (none when root is not in it).
std::set<long long> process_tree(const ProcessTable& table, long long root);

// Return the resident memory of a process tree in bytes: each process's RSS counted once
// (threads share their process's, and /proc lists processes only).
double tree_resident_bytes(const ProcessTable& table, long long root, long long page_bytes);

// Return the CPU cores a process tree used between two readings interval_s apart: the CPU time
// each process of the later tree gained (all of it for one started since the first reading,
// known by its start time), over the interval. Processes that ended between the readings are
// left out.
double tree_cpu_cores(const ProcessTable& before, const ProcessTable& after, long long root,
                      double ticks_per_second, double interval_s);

}  // namespace kftrain::usage
