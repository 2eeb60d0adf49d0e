#pragma once

#include <cstdint>

#include "trainer/data/image_set.h"

namespace kftrain::trainer::data {

// Generate count learnable images: each class has a fixed pattern of blobs (the same for
// every seed), and each sample shifts, dims and adds noise to it, drawn from seed.
ImageSet make_synthetic(int64_t count, int channels, int rows, int cols, uint64_t seed);

}  // namespace kftrain::trainer::data
