#pragma once

#include <torch/torch.h>

#include <memory>
#include <string>

#include "util/result.h"

namespace kftrain::trainer {

// A classifier the trainer can train: images [N, C, H, W] in, class logits [N, 10] out.
struct Net : torch::nn::Module {
    // Compute class logits for a batch of normalised images.
    virtual torch::Tensor forward(torch::Tensor x) = 0;
};

// Build mnist-cnn, mlp or resnet18 (CIFAR variant) for images of channels x rows x cols.
util::Result<std::shared_ptr<Net>> make_model(const std::string& name, int channels, int rows,
                                              int cols);

}  // namespace kftrain::trainer
