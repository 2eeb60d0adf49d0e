#include "trainer/data/cifar.h"

#include <fmt/format.h>

#include <filesystem>

#include "trainer/data/file_bytes.h"
#include "util/files.h"

namespace kftrain::trainer::data {
namespace {

ImageSet empty_cifar_set() {
    ImageSet set;
    set.channels = 3;
    set.rows = 32;
    set.cols = 32;
    set.mean = {0.4914f, 0.4822f, 0.4465f};
    set.stddev = {0.2470f, 0.2435f, 0.2616f};
    return set;
}

util::Status append_batch(const FileBytes& f, ImageSet& set) {
    const std::size_t size = f.bytes.size();
    if (size == 0 || size % k_cifar_record_bytes != 0) {
        return util::error(
            fmt::format("{}: {} bytes is not a whole number of {}-byte records "
                        "(truncated or corrupt)",
                        f.path, size, k_cifar_record_bytes));
    }
    const std::size_t records = size / k_cifar_record_bytes;
    for (std::size_t r = 0; r < records; ++r) {
        const char* rec = f.bytes.data() + r * k_cifar_record_bytes;
        const auto label = static_cast<uint8_t>(rec[0]);
        if (label >= k_num_classes) {
            return util::error(fmt::format("{}: label {} in record {} is not below {}", f.path,
                                           int{label}, r, k_num_classes));
        }
        set.labels.push_back(label);
        set.pixels.insert(set.pixels.end(), rec + 1, rec + k_cifar_record_bytes);
    }
    set.count += static_cast<int64_t>(records);
    return util::ok_status();
}

}  // namespace

util::Result<ImageSet> read_cifar_batches(const std::vector<std::string>& paths) {
    ImageSet set = empty_cifar_set();
    for (const auto& path : paths) {
        auto bytes = read_maybe_gz(path);
        if (!bytes.ok()) {
            return util::error(bytes.error());
        }
        if (auto ok = append_batch(*bytes, set); !ok.ok()) {
            return util::error(ok.error());
        }
    }
    return set;
}

util::Result<DataSplits> load_cifar10(const std::string& dir) {
    const std::filesystem::path d(dir);
    std::vector<std::string> train_paths;
    for (int i = 1; i <= 5; ++i) {
        train_paths.push_back((d / fmt::format("data_batch_{}.bin", i)).string());
    }
    auto train = read_cifar_batches(train_paths);
    if (!train.ok()) {
        return util::error(train.error());
    }
    auto test = read_cifar_batches({(d / "test_batch.bin").string()});
    if (!test.ok()) {
        return util::error(test.error());
    }
    return DataSplits{std::move(*train), std::move(*test)};
}

util::Status write_cifar_batch(const ImageSet& set, const std::string& path) {
    std::string bytes;
    const auto image = static_cast<std::size_t>(set.image_bytes());
    for (int64_t i = 0; i < set.count; ++i) {
        bytes.push_back(static_cast<char>(set.labels[i]));
        const auto* start = set.pixels.data() + i * image;
        bytes.append(start, start + image);
    }
    return util::write_file_atomic(path, bytes, k_file_mode);
}

}  // namespace kftrain::trainer::data
