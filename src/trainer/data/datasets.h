#pragma once

#include "trainer/data/image_set.h"
#include "trainer/startup/options.h"
#include "util/result.h"
#include "wire/dataset_sizes.h"

namespace kftrain::trainer::data {

// Load (or generate) the data set the options name, keeping the first --samples samples.
util::Result<DataSplits> load_datasets(const TrainOptions& options);

// Write make-dataset's output: the four MNIST IDX files in the output directory. Throws
// std::bad_alloc for more images than the machine's memory holds, overcommitted or not.
util::Status make_dataset(const MakeDatasetOptions& options);

}  // namespace kftrain::trainer::data
