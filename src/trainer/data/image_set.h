#pragma once

#include <array>
#include <cstdint>
#include <vector>

namespace kftrain::trainer::data {

// Hold a labelled image data set in memory: count images of channels x rows x cols bytes.
struct ImageSet {
    int64_t count = 0;
    int channels = 1;
    int rows = 0;
    int cols = 0;
    std::vector<uint8_t> pixels;
    std::vector<uint8_t> labels;
    // Per-channel normalisation applied to pixels / 255.
    std::array<float, 3> mean{0.1307f, 0.1307f, 0.1307f};
    std::array<float, 3> stddev{0.3081f, 0.3081f, 0.3081f};

    // Return the number of bytes of one image.
    int64_t image_bytes() const { return static_cast<int64_t>(channels) * rows * cols; }
};

// Hold the training and test splits of a data set.
struct DataSplits {
    ImageSet train;
    ImageSet test;
};

// Number of classes of every data set the trainer knows.
constexpr int k_num_classes = 10;

}  // namespace kftrain::trainer::data
