#pragma once

#include <string>
#include <vector>

#include "trainer/data/image_set.h"
#include "util/result.h"

namespace kftrain::trainer::data {

// Bytes of one CIFAR-10 record: a label byte and 3x32x32 pixels (CHW).
constexpr std::size_t k_cifar_record_bytes = 1 + 3 * 32 * 32;

// Read CIFAR-10 binary batch files into one set.
util::Result<ImageSet> read_cifar_batches(const std::vector<std::string>& paths);

// Read data_batch_1..5.bin and test_batch.bin from dir.
util::Result<DataSplits> load_cifar10(const std::string& dir);

// Write a 3x32x32 set as one CIFAR-10 binary batch file.
util::Status write_cifar_batch(const ImageSet& set, const std::string& path);

}  // namespace kftrain::trainer::data
