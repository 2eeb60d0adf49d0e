#include "trainer/models.h"

#include <fmt/format.h>

#include <algorithm>

#include "trainer/data/image_set.h"

namespace kftrain::trainer {
namespace nn = torch::nn;
namespace {

// The PyTorch MNIST example network: two 3x3 convolutions, max pooling, two linear layers.
struct MnistCnn : Net {
    MnistCnn(int channels, int rows, int cols) {
        conv1 = register_module("conv1", nn::Conv2d(nn::Conv2dOptions(channels, 32, 3)));
        conv2 = register_module("conv2", nn::Conv2d(nn::Conv2dOptions(32, 64, 3)));
        const int64_t flat = 64 * ((rows - 4) / 2) * ((cols - 4) / 2);
        fc1 = register_module("fc1", nn::Linear(flat, 128));
        fc2 = register_module("fc2", nn::Linear(128, data::k_num_classes));
        dropout1 = register_module("dropout1", nn::Dropout(0.25));
        dropout2 = register_module("dropout2", nn::Dropout(0.5));
    }
    torch::Tensor forward(torch::Tensor x) override {
        x = torch::relu(conv1(laid_out(x)));
        x = torch::max_pool2d(torch::relu(conv2(x)), 2);
        x = dropout1(x).flatten(1);
        x = dropout2(torch::relu(fc1(x)));
        return fc2(x);
    }
    nn::Conv2d conv1{nullptr}, conv2{nullptr};
    nn::Linear fc1{nullptr}, fc2{nullptr};
    nn::Dropout dropout1{nullptr}, dropout2{nullptr};
};

// A two-hidden-layer perceptron on flattened pixels.
struct Mlp : Net {
    explicit Mlp(int64_t inputs) {
        fc1 = register_module("fc1", nn::Linear(inputs, 256));
        fc2 = register_module("fc2", nn::Linear(256, 128));
        fc3 = register_module("fc3", nn::Linear(128, data::k_num_classes));
    }
    torch::Tensor forward(torch::Tensor x) override {
        x = torch::relu(fc1(x.flatten(1)));
        x = torch::relu(fc2(x));
        return fc3(x);
    }
    nn::Linear fc1{nullptr}, fc2{nullptr}, fc3{nullptr};
};

nn::Conv2d conv3x3(int64_t in, int64_t out, int64_t stride) {
    return nn::Conv2d(nn::Conv2dOptions(in, out, 3).stride(stride).padding(1).bias(false));
}

// A ResNet basic block: two 3x3 convolutions with batch norm and a shortcut.
struct BasicBlockImpl : nn::Module {
    BasicBlockImpl(int64_t in, int64_t out, int64_t stride) {
        conv1 = register_module("conv1", conv3x3(in, out, stride));
        bn1 = register_module("bn1", nn::BatchNorm2d(out));
        conv2 = register_module("conv2", conv3x3(out, out, 1));
        bn2 = register_module("bn2", nn::BatchNorm2d(out));
        if (stride != 1 || in != out) {
            shortcut = register_module(
                "shortcut",
                nn::Sequential(nn::Conv2d(nn::Conv2dOptions(in, out, 1).stride(stride).bias(false)),
                               nn::BatchNorm2d(out)));
        }
    }
    torch::Tensor forward(torch::Tensor x) {
        auto y = torch::relu(bn1(conv1(x)));
        y = bn2(conv2(y));
        return torch::relu(y + (shortcut ? shortcut->forward(x) : x));
    }
    nn::Conv2d conv1{nullptr}, conv2{nullptr};
    nn::BatchNorm2d bn1{nullptr}, bn2{nullptr};
    nn::Sequential shortcut{nullptr};
};
TORCH_MODULE(BasicBlock);

// ResNet-18 for 32x32 images: a 3x3 stem without max pooling, four stages of two blocks.
struct ResNet18 : Net {
    explicit ResNet18(int channels) {
        stem = register_module("stem", conv3x3(channels, 64, 1));
        bn = register_module("bn", nn::BatchNorm2d(64));
        int64_t in = 64;
        for (int64_t out : {64, 128, 256, 512}) {
            const int64_t stride = out == 64 ? 1 : 2;
            layers->push_back(BasicBlock(in, out, stride));
            layers->push_back(BasicBlock(out, out, 1));
            in = out;
        }
        register_module("layers", layers);
        fc = register_module("fc", nn::Linear(512, data::k_num_classes));
    }
    torch::Tensor forward(torch::Tensor x) override {
        x = torch::relu(bn(stem(laid_out(x))));
        x = layers->forward(x);
        x = torch::adaptive_avg_pool2d(x, {1, 1}).flatten(1);
        return fc(x);
    }
    nn::Conv2d stem{nullptr};
    nn::BatchNorm2d bn{nullptr};
    nn::Sequential layers;
    nn::Linear fc{nullptr};
};

}  // namespace

torch::Tensor in_memory_format(const torch::Tensor& t, torch::MemoryFormat format) {
    if (!t.defined() || t.dim() != 4 || t.suggest_memory_format() == format) {
        return t;
    }
    return torch::empty_like(t, t.options(), format).copy_(t);
}

bool Net::convolutional() const {
    const auto params = parameters();
    return std::any_of(params.begin(), params.end(),
                       [](const torch::Tensor& p) { return p.dim() == 4; });
}

void Net::set_memory_format(torch::MemoryFormat format) {
    torch::NoGradGuard no_grad;
    m_memory_format = format;
    for (auto& p : parameters()) {
        auto laid = in_memory_format(p, format);
        if (!laid.is_same(p)) {
            p.set_data(laid);
        }
    }
}

torch::Tensor Net::laid_out(const torch::Tensor& x) const {
    return in_memory_format(x, m_memory_format);
}

std::string memory_format_name(torch::MemoryFormat format) {
    return format == torch::MemoryFormat::ChannelsLast ? "channels-last" : "contiguous";
}

util::Result<std::shared_ptr<Net>> make_model(const std::string& name, int channels, int rows,
                                              int cols) {
    if (name == "mnist-cnn") {
        if (rows < 6 || cols < 6) {
            return util::error(fmt::format(
                "--model: mnist-cnn needs images of at least 6x6 (got {}x{})", rows, cols));
        }
        return std::shared_ptr<Net>(std::make_shared<MnistCnn>(channels, rows, cols));
    }
    if (name == "mlp") {
        return std::shared_ptr<Net>(std::make_shared<Mlp>(int64_t{channels} * rows * cols));
    }
    if (name == "resnet18") {
        return std::shared_ptr<Net>(std::make_shared<ResNet18>(channels));
    }
    return util::error(fmt::format("--model: unknown model (got {})", name));
}

}  // namespace kftrain::trainer
