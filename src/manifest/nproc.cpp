#include "manifest/nproc.h"

#include <limits>

namespace kftrain::manifest {

std::optional<int> nproc_count(const std::string& nproc) {
    if (nproc.empty() || nproc[0] == '0' ||
        nproc.find_first_not_of("0123456789") != std::string::npos) {
        return std::nullopt;
    }
    if (nproc.size() > 9) {
        return std::numeric_limits<int>::max();
    }
    return std::stoi(nproc);
}

bool nproc_is_word(const std::string& nproc) {
    return nproc.empty() || nproc == "auto" || nproc == "cpu" || nproc == "gpu";
}

}  // namespace kftrain::manifest
