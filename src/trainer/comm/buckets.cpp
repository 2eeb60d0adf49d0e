#include "trainer/comm/buckets.h"

namespace kftrain::trainer::comm {

std::vector<std::vector<std::size_t>> assign_buckets(const std::vector<std::size_t>& param_bytes,
                                                     std::size_t first_cap, std::size_t cap) {
    std::vector<std::vector<std::size_t>> buckets;
    std::vector<std::size_t> current;
    std::size_t current_bytes = 0;
    for (std::size_t i = param_bytes.size(); i-- > 0;) {
        current.push_back(i);
        current_bytes += param_bytes[i];
        const std::size_t limit = buckets.empty() ? first_cap : cap;
        if (current_bytes >= limit) {
            buckets.push_back(std::move(current));
            current.clear();
            current_bytes = 0;
        }
    }
    if (!current.empty()) {
        buckets.push_back(std::move(current));
    }
    return buckets;
}

}  // namespace kftrain::trainer::comm
