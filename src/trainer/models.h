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

    // Whether the network has convolutions (4-D weights), whose speed depends on the memory
    // format.
    bool convolutional() const;
    // Lay out the 4-D parameters, and the images forward() convolves, in this memory format:
    // channels last (NHWC), which oneDNN's CPU convolutions run on without reordering their
    // operands every call, or contiguous (NCHW). Parameters already in it are left as they
    // are; call it again after anything replaced their data (loading a checkpoint does).
    void set_memory_format(torch::MemoryFormat format);
    torch::MemoryFormat memory_format() const { return m_memory_format; }

  protected:
    // Return a batch of images in the network's memory format.
    torch::Tensor laid_out(const torch::Tensor& x) const;

  private:
    torch::MemoryFormat m_memory_format = torch::MemoryFormat::Contiguous;
};

// Return a 4-D tensor in a memory format: itself if its strides already say so (the format
// oneDNN's convolutions go by), else a copy laid out in it, whose strides say so even where
// a dimension of size 1 (one input channel) makes both formats hold the same bytes. Other
// tensors are returned as they are.
torch::Tensor in_memory_format(const torch::Tensor& t, torch::MemoryFormat format);

// Name a memory format as --memory-format does: channels-last or contiguous.
std::string memory_format_name(torch::MemoryFormat format);

// Build mnist-cnn, mlp or resnet18 (CIFAR variant) for images of channels x rows x cols.
util::Result<std::shared_ptr<Net>> make_model(const std::string& name, int channels, int rows,
                                              int cols);

}  // namespace kftrain::trainer
