// Fuzz the reader and writer of Kubernetes quantities: the input is a quantity's text, as a job
// file's resources, a node's allocatable or a ResourceQuota's hard give it. Property: nothing
// throws or crashes; a quantity read is finite and below 2^63 base units; one written for CPU,
// memory or a count reads back.

#include <cmath>
#include <string>

#include "fuzz_input.h"
#include "manifest/k8s/quantity.h"

using namespace kftrain;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    auto value = manifest::read_quantity(text);
    if (value.ok() != manifest::parse_quantity(text).has_value()) {
        fuzz::fail("read_quantity and parse_quantity disagree");
    }
    if (!value.ok()) {
        return 0;
    }
    if (!std::isfinite(*value) || std::fabs(*value) >= 9.3e18) {
        fuzz::fail("a quantity read is not finite or past 2^63");
    }
    for (const char* resource : {"cpu", "memory", "nvidia.com/gpu"}) {
        const std::string written = manifest::quantity_text(resource, *value);
        if (*value >= 0 && !manifest::read_quantity(written).ok()) {
            fuzz::fail("a quantity written does not read back: " + written);
        }
    }
    return 0;
}
