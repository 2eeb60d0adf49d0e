#include "trainer/data/synthetic.h"

#include <algorithm>
#include <cmath>
#include <random>

namespace kftrain::trainer::data {
namespace {

constexpr uint64_t k_pattern_seed = 0x6b66747261696e;  // fixed: patterns never depend on seed
constexpr int k_blobs_per_class = 3;

// Draw a double in [0, 1) from the generator's bits (portable, unlike distributions).
double uniform(std::mt19937_64& rng) {
    return static_cast<double>(rng() >> 11) * 0x1.0p-53;
}

struct Blob {
    double y, x, radius, channel_weight[3];
};

std::vector<std::vector<Blob>> class_patterns(int rows, int cols) {
    std::mt19937_64 rng(k_pattern_seed);
    std::vector<std::vector<Blob>> patterns(k_num_classes);
    for (auto& blobs : patterns) {
        for (int b = 0; b < k_blobs_per_class; ++b) {
            Blob blob{};
            blob.y = 4 + uniform(rng) * (rows - 8);
            blob.x = 4 + uniform(rng) * (cols - 8);
            blob.radius = 2 + uniform(rng) * 3;
            for (double& w : blob.channel_weight) {
                w = 0.3 + 0.7 * uniform(rng);
            }
            blobs.push_back(blob);
        }
    }
    return patterns;
}

// Draw one sample: the class's blobs shifted and dimmed, one blob of another class as a
// distractor, and uniform noise. A blob is a Gaussian, exp(-(ry^2 + rx^2) / 2r^2), which is
// exp(-ry^2 / 2r^2) times exp(-rx^2 / 2r^2): one exp per row and per column, not per pixel
// (the start of a run on synthetic data was mostly these exps).
void draw_sample(std::vector<Blob> blobs, const Blob& distractor, std::mt19937_64& rng,
                 const ImageSet& set, uint8_t* out) {
    const double dy = uniform(rng) * 6 - 3, dx = uniform(rng) * 6 - 3;
    const double intensity = 0.5 + 0.5 * uniform(rng);
    blobs.push_back(distractor);
    const auto rows = static_cast<std::size_t>(set.rows), cols = static_cast<std::size_t>(set.cols);
    std::vector<double> along_y(blobs.size() * rows), along_x(blobs.size() * cols);
    for (std::size_t b = 0; b < blobs.size(); ++b) {
        const double scale = -1 / (2 * blobs[b].radius * blobs[b].radius);
        for (std::size_t y = 0; y < rows; ++y) {
            const double ry = static_cast<double>(y) - blobs[b].y - dy;
            along_y[b * rows + y] = std::exp(ry * ry * scale);
        }
        for (std::size_t x = 0; x < cols; ++x) {
            const double rx = static_cast<double>(x) - blobs[b].x - dx;
            along_x[b * cols + x] = std::exp(rx * rx * scale);
        }
    }
    for (int c = 0; c < set.channels; ++c) {
        for (std::size_t y = 0; y < rows; ++y) {
            for (std::size_t x = 0; x < cols; ++x) {
                double v = 0;
                for (std::size_t b = 0; b < blobs.size(); ++b) {
                    const double w = set.channels == 1 ? 1.0 : blobs[b].channel_weight[c];
                    v += w * along_y[b * rows + y] * along_x[b * cols + x];
                }
                v = intensity * std::min(v, 1.0) + 0.8 * uniform(rng);
                *out++ = static_cast<uint8_t>(std::clamp(v, 0.0, 1.0) * 255.0);
            }
        }
    }
}

}  // namespace

ImageSet make_synthetic(int64_t count, int channels, int rows, int cols, uint64_t seed) {
    ImageSet set;
    set.count = count;
    set.channels = channels;
    set.rows = rows;
    set.cols = cols;
    set.mean = {0.45f, 0.45f, 0.45f};
    set.stddev = {0.3f, 0.3f, 0.3f};
    set.pixels.resize(static_cast<std::size_t>(count * set.image_bytes()));
    set.labels.resize(static_cast<std::size_t>(count));
    const auto patterns = class_patterns(rows, cols);
    std::mt19937_64 rng(seed * 0x9e3779b97f4a7c15ULL + 1);
    for (int64_t i = 0; i < count; ++i) {
        const auto label = static_cast<uint8_t>(rng() % k_num_classes);
        set.labels[i] = label;
        const auto other = (label + 1 + rng() % (k_num_classes - 1)) % k_num_classes;
        const auto& distractor = patterns[other][rng() % k_blobs_per_class];
        draw_sample(patterns[label], distractor, rng, set,
                    set.pixels.data() + i * set.image_bytes());
    }
    return set;
}

}  // namespace kftrain::trainer::data
