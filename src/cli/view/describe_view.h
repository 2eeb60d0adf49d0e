#pragma once

#include <ctime>
#include <ostream>

#include "cli/view/status_view.h"
#include "job/description.h"

namespace kftrain::cli::view {

// Print describe's account: the summary as status -o wide shows it, then each part a blank line
// apart. A part's labels share one column (the summary's, at least, when there is one); a
// heading's entries are indented two spaces, in a column of their own. Every value and cell is
// shown as one line, control characters escaped: they come from the cluster and from programs.
// Of more than job::k_many_replicas, the summary counts the replicas unless rows says Every.
void print_description(std::ostream& out, const job::JobDescription& description, std::time_t now,
                       ReplicaRows rows = ReplicaRows::SummaryOfMany);

}  // namespace kftrain::cli::view
