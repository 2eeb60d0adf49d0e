#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace kftrain::estimate {

// The size of one of the trainer's networks for one input shape.
struct NetworkShape {
    int64_t parameters = 0;
    int64_t forward_flops_per_sample = 0;  // 2 x multiply-accumulates of one forward pass
};

// The input images of a data set, and how many training samples it holds.
struct DatasetShape {
    int channels = 1;
    int rows = 28;
    int cols = 28;
    int64_t train_samples = 0;
    int64_t test_samples = 0;  // evaluated after every epoch
};

// Return the shape of mnist, cifar10 or synthetic (whose images follow the model, as the
// trainer makes them); nullopt for another name.
std::optional<DatasetShape> dataset_shape(const std::string& dataset, const std::string& model);

// Count the parameters and forward FLOPs of mnist-cnn, mlp or resnet18 (CIFAR variant) as
// kftrain-trainer builds them for images of the data set's shape; nullopt for another name.
std::optional<NetworkShape> network_shape(const std::string& model, const DatasetShape& input);

}  // namespace kftrain::estimate
