#include "trainer/data/datasets.h"

#include <fmt/format.h>
#include <unistd.h>

#include <filesystem>
#include <new>

#include "trainer/data/cifar.h"
#include "trainer/data/idx.h"
#include "trainer/data/synthetic.h"

namespace kftrain::trainer::data {
namespace {

void keep_first(ImageSet& set, int64_t samples) {
    if (samples <= 0 || samples >= set.count) {
        return;
    }
    set.count = samples;
    set.pixels.resize(static_cast<std::size_t>(samples * set.image_bytes()));
    set.labels.resize(static_cast<std::size_t>(samples));
}

DataSplits synthetic_splits(const TrainOptions& o) {
    const bool cifar_shape = o.model == "resnet18";
    const int channels = cifar_shape ? 3 : 1, side = cifar_shape ? 32 : 28;
    const int64_t n = o.samples > 0 ? o.samples : wire::k_default_synthetic_samples;
    const auto seed = static_cast<uint64_t>(o.seed);
    return DataSplits{
        make_synthetic(n, channels, side, side, seed),
        make_synthetic(wire::synthetic_test_count(n), channels, side, side, seed + 1000003)};
}

}  // namespace

util::Result<DataSplits> load_datasets(const TrainOptions& o) {
    if (o.dataset == "synthetic") {
        return synthetic_splits(o);
    }
    auto splits = o.dataset == "mnist" ? load_mnist(o.data_dir) : load_cifar10(o.data_dir);
    if (splits.ok()) {
        keep_first(splits->train, o.samples);
    }
    return splits;
}

util::Status make_dataset(const MakeDatasetOptions& o) {
    namespace fs = std::filesystem;
    std::error_code ec;
    fs::create_directories(o.out, ec);
    if (ec) {
        return util::error(
            fmt::format("--out: cannot create directory: {} (got {})", ec.message(), o.out));
    }
    // Where memory is overcommitted (the kubelet sets vm.overcommit_memory=1 on its nodes),
    // an allocation past what the machine has does not fail: it pages the machine into its
    // OOM killer as it is filled. Refuse one past the physical memory first, as a failed
    // allocation would be (main says "not enough memory").
    const auto images = static_cast<double>(o.samples + wire::synthetic_test_count(o.samples));
    const double physical = static_cast<double>(::sysconf(_SC_PHYS_PAGES)) *
                            static_cast<double>(::sysconf(_SC_PAGE_SIZE));
    if (images * (28 * 28 + 1) > physical) {
        throw std::bad_alloc();
    }
    const auto seed = static_cast<uint64_t>(o.seed);
    const auto train = make_synthetic(o.samples, 1, 28, 28, seed);
    const auto test =
        make_synthetic(wire::synthetic_test_count(o.samples), 1, 28, 28, seed + 1000003);
    const fs::path d(o.out);
    auto ok = write_idx_pair(train, (d / k_mnist_train_images).string(),
                             (d / k_mnist_train_labels).string());
    if (!ok.ok()) {
        return ok;
    }
    return write_idx_pair(test, (d / k_mnist_test_images).string(),
                          (d / k_mnist_test_labels).string());
}

}  // namespace kftrain::trainer::data
