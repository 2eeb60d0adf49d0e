#include "estimate/network_shape.h"

#include "wire/dataset_sizes.h"

namespace kftrain::estimate {
namespace {

constexpr int k_classes = 10;

// Follows an activation of shape channels x rows x cols through layers, counting
// parameters and multiply-accumulates.
class ShapeCounter {
  public:
    ShapeCounter(int channels, int rows, int cols) : m_c(channels), m_h(rows), m_w(cols) {}

    // Add a convolution of out channels, a square kernel, stride and padding.
    void conv(int out, int kernel, int stride, int padding, bool bias) {
        const int h = (m_h + 2 * padding - kernel) / stride + 1;
        const int w = (m_w + 2 * padding - kernel) / stride + 1;
        const int64_t weights = int64_t{m_c} * out * kernel * kernel;
        m_params += weights + (bias ? out : 0);
        m_macs += weights * h * w;
        m_c = out;
        m_h = h;
        m_w = w;
    }

    // Add a batch norm (a scale and a shift per channel).
    void batch_norm() { m_params += 2 * int64_t{m_c}; }

    // Add a max pool of a square window with stride equal to the window.
    void max_pool(int window) {
        m_h /= window;
        m_w /= window;
    }

    // Pool to 1x1 per channel.
    void global_pool() {
        m_h = 1;
        m_w = 1;
    }

    // Add a fully connected layer on the flattened activation.
    void linear(int out) {
        const int64_t in = int64_t{m_c} * m_h * m_w;
        m_params += in * out + out;
        m_macs += in * out;
        m_c = out;
        m_h = 1;
        m_w = 1;
    }

    // Add the parameters and work of another branch on the same input.
    void absorb(const ShapeCounter& branch) {
        m_params += branch.m_params;
        m_macs += branch.m_macs;
    }

    int channels() const { return m_c; }
    int rows() const { return m_h; }
    int cols() const { return m_w; }
    NetworkShape shape() const { return {m_params, 2 * m_macs}; }

  private:
    int m_c, m_h, m_w;
    int64_t m_params = 0;
    int64_t m_macs = 0;
};

NetworkShape mnist_cnn(const DatasetShape& in) {
    ShapeCounter s(in.channels, in.rows, in.cols);
    s.conv(32, 3, 1, 0, true);
    s.conv(64, 3, 1, 0, true);
    s.max_pool(2);
    s.linear(128);
    s.linear(k_classes);
    return s.shape();
}

NetworkShape mlp(const DatasetShape& in) {
    ShapeCounter s(in.channels, in.rows, in.cols);
    s.linear(256);
    s.linear(128);
    s.linear(k_classes);
    return s.shape();
}

// A basic block: two 3x3 convolutions with batch norm, and a 1x1 shortcut when the
// shape changes.
void basic_block(ShapeCounter& s, int out, int stride) {
    ShapeCounter shortcut(s.channels(), s.rows(), s.cols());
    const bool projects = stride != 1 || s.channels() != out;
    s.conv(out, 3, stride, 1, false);
    s.batch_norm();
    s.conv(out, 3, 1, 1, false);
    s.batch_norm();
    if (projects) {
        shortcut.conv(out, 1, stride, 0, false);
        shortcut.batch_norm();
        s.absorb(shortcut);
    }
}

NetworkShape resnet18(const DatasetShape& in) {
    ShapeCounter s(in.channels, in.rows, in.cols);
    s.conv(64, 3, 1, 1, false);
    s.batch_norm();
    for (int out : {64, 128, 256, 512}) {
        basic_block(s, out, out == 64 ? 1 : 2);
        basic_block(s, out, 1);
    }
    s.global_pool();
    s.linear(k_classes);
    return s.shape();
}

}  // namespace

std::optional<DatasetShape> dataset_shape(const std::string& dataset, const std::string& model) {
    if (dataset == "mnist") {
        return DatasetShape{1, 28, 28, wire::k_mnist_train_samples, wire::k_mnist_test_samples};
    }
    if (dataset == "cifar10") {
        return DatasetShape{3, 32, 32, wire::k_cifar10_train_samples, wire::k_cifar10_test_samples};
    }
    if (dataset == "synthetic") {
        constexpr int64_t train = wire::k_default_synthetic_samples;
        constexpr int64_t test = wire::synthetic_test_count(train);
        return model == "resnet18" ? DatasetShape{3, 32, 32, train, test}
                                   : DatasetShape{1, 28, 28, train, test};
    }
    return std::nullopt;
}

std::optional<NetworkShape> network_shape(const std::string& model, const DatasetShape& input) {
    if (model == "mnist-cnn") {
        return mnist_cnn(input);
    }
    if (model == "mlp") {
        return mlp(input);
    }
    if (model == "resnet18") {
        return resnet18(input);
    }
    return std::nullopt;
}

}  // namespace kftrain::estimate
