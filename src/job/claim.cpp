#include "job/claim.h"

#include <algorithm>

namespace kftrain::job {

size_t Listing::files() const {
    return static_cast<size_t>(std::count_if(entries.begin(), entries.end(),
                                             [](const Entry& e) { return e.type != "directory"; }));
}

uint64_t Listing::bytes() const {
    uint64_t total = 0;
    for (const auto& e : entries) {
        total += e.type == "file" ? e.size : 0;
    }
    return total;
}

}  // namespace kftrain::job
