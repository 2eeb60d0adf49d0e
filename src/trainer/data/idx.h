#pragma once

#include <string>

#include "trainer/data/image_set.h"
#include "util/result.h"

namespace kftrain::trainer::data {

// Standard MNIST file names.
constexpr const char* k_mnist_train_images = "train-images-idx3-ubyte";
constexpr const char* k_mnist_train_labels = "train-labels-idx1-ubyte";
constexpr const char* k_mnist_test_images = "t10k-images-idx3-ubyte";
constexpr const char* k_mnist_test_labels = "t10k-labels-idx1-ubyte";

// Read an IDX images file and its labels file (raw, or with .gz appended) into a set.
util::Result<ImageSet> read_idx_pair(const std::string& images_path,
                                     const std::string& labels_path);

// Read the four standard MNIST files from dir.
util::Result<DataSplits> load_mnist(const std::string& dir);

// Write a set as an IDX images file and an IDX labels file (uncompressed).
util::Status write_idx_pair(const ImageSet& set, const std::string& images_path,
                            const std::string& labels_path);

}  // namespace kftrain::trainer::data
