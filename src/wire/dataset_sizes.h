#pragma once

#include <algorithm>
#include <cstdint>

namespace kftrain::wire {

// The sizes of the data sets kftrain-trainer trains on, shared by the trainer (which makes
// and splits them) and the estimate (which predicts their steps and evaluation). Header-only,
// so both use one definition without linking.

// Images in the standard MNIST and CIFAR-10 files.
constexpr int64_t k_mnist_train_samples = 60000;
constexpr int64_t k_mnist_test_samples = 10000;
constexpr int64_t k_cifar10_train_samples = 50000;
constexpr int64_t k_cifar10_test_samples = 10000;

// Training samples of the synthetic set when trainer.samples is 0.
constexpr int64_t k_default_synthetic_samples = 2048;

// Return the test-split size the trainer makes for a synthetic training set of count samples.
constexpr int64_t synthetic_test_count(int64_t count) {
    return std::max<int64_t>(count / 5, 10);
}

}  // namespace kftrain::wire
