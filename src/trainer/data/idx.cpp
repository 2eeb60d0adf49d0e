#include "trainer/data/idx.h"

#include <fmt/format.h>

#include <filesystem>

#include "trainer/data/file_bytes.h"
#include "util/files.h"

namespace kftrain::trainer::data {
namespace {

constexpr uint32_t k_images_magic = 2051;
constexpr uint32_t k_labels_magic = 2049;
// The widest and tallest image read: sides this small keep count * rows * cols within 64 bits.
constexpr uint32_t k_max_side = 65535;

uint32_t be32(const std::string& b, std::size_t at) {
    auto u = [&](std::size_t i) { return static_cast<uint32_t>(static_cast<uint8_t>(b[at + i])); };
    return (u(0) << 24) | (u(1) << 16) | (u(2) << 8) | u(3);
}

void put_be32(std::string& b, uint32_t v) {
    for (int shift = 24; shift >= 0; shift -= 8) {
        b.push_back(static_cast<char>((v >> shift) & 0xff));
    }
}

util::Status check_header(const FileBytes& f, uint32_t magic, std::size_t header) {
    if (f.bytes.size() < header) {
        return util::error(fmt::format("{}: truncated header ({} bytes, need {})", f.path,
                                       f.bytes.size(), header));
    }
    if (be32(f.bytes, 0) != magic) {
        return util::error(
            fmt::format("{}: bad magic number {} (expected {})", f.path, be32(f.bytes, 0), magic));
    }
    return util::ok_status();
}

util::Status check_size(const FileBytes& f, uint64_t expected, const std::string& formula) {
    if (f.bytes.size() != expected) {
        return util::error(fmt::format("{}: {} bytes, expected {} = {} (truncated or corrupt)",
                                       f.path, f.bytes.size(), expected, formula));
    }
    return util::ok_status();
}

util::Status parse_images(const FileBytes& f, ImageSet& set) {
    if (auto ok = check_header(f, k_images_magic, 16); !ok.ok()) {
        return ok;
    }
    const uint32_t rows = be32(f.bytes, 8);
    const uint32_t cols = be32(f.bytes, 12);
    if (rows == 0 || cols == 0 || rows > k_max_side || cols > k_max_side) {
        return util::error(fmt::format("{}: images of {}x{} pixels (each side must be 1 to {})",
                                       f.path, rows, cols, k_max_side));
    }
    set.count = be32(f.bytes, 4);
    set.rows = static_cast<int>(rows);
    set.cols = static_cast<int>(cols);
    const uint64_t expected = 16 + uint64_t{be32(f.bytes, 4)} * rows * cols;
    auto ok = check_size(f, expected, fmt::format("16 + {}*{}*{}", set.count, set.rows, set.cols));
    if (!ok.ok()) {
        return ok;
    }
    set.pixels.assign(f.bytes.begin() + 16, f.bytes.end());
    return util::ok_status();
}

util::Status parse_labels(const FileBytes& f, ImageSet& set) {
    if (auto ok = check_header(f, k_labels_magic, 8); !ok.ok()) {
        return ok;
    }
    const uint32_t count = be32(f.bytes, 4);
    if (auto ok = check_size(f, 8 + uint64_t{count}, fmt::format("8 + {}", count)); !ok.ok()) {
        return ok;
    }
    if (count != set.count) {
        return util::error(fmt::format("{}: {} labels but the images file has {} images", f.path,
                                       count, set.count));
    }
    set.labels.assign(f.bytes.begin() + 8, f.bytes.end());
    for (std::size_t i = 0; i < set.labels.size(); ++i) {
        if (set.labels[i] >= k_num_classes) {
            return util::error(fmt::format("{}: label {} at index {} is not below {}", f.path,
                                           int{set.labels[i]}, i, k_num_classes));
        }
    }
    return util::ok_status();
}

}  // namespace

util::Result<ImageSet> read_idx_pair(const std::string& images_path,
                                     const std::string& labels_path) {
    ImageSet set;
    auto images = read_maybe_gz(images_path);
    if (!images.ok()) {
        return util::error(images.error());
    }
    if (auto ok = parse_images(*images, set); !ok.ok()) {
        return util::error(ok.error());
    }
    auto labels = read_maybe_gz(labels_path);
    if (!labels.ok()) {
        return util::error(labels.error());
    }
    if (auto ok = parse_labels(*labels, set); !ok.ok()) {
        return util::error(ok.error());
    }
    if (set.count == 0) {
        return util::error(fmt::format("{}: holds no images", images->path));
    }
    return set;
}

util::Result<DataSplits> load_mnist(const std::string& dir) {
    const std::filesystem::path d(dir);
    auto train =
        read_idx_pair((d / k_mnist_train_images).string(), (d / k_mnist_train_labels).string());
    if (!train.ok()) {
        return util::error(train.error());
    }
    auto test =
        read_idx_pair((d / k_mnist_test_images).string(), (d / k_mnist_test_labels).string());
    if (!test.ok()) {
        return util::error(test.error());
    }
    // The model is built for the training images' size: test images of another fail the
    // first evaluation, after a whole epoch (and before its checkpoint).
    if (test->rows != train->rows || test->cols != train->cols) {
        return util::error(fmt::format(
            "{}: images of {}x{}, where the training images ({}) are {}x{}: both sets must be "
            "of one size",
            (d / k_mnist_test_images).string(), test->rows, test->cols,
            (d / k_mnist_train_images).string(), train->rows, train->cols));
    }
    return DataSplits{std::move(*train), std::move(*test)};
}

util::Status write_idx_pair(const ImageSet& set, const std::string& images_path,
                            const std::string& labels_path) {
    std::string images;
    put_be32(images, k_images_magic);
    put_be32(images, static_cast<uint32_t>(set.count));
    put_be32(images, static_cast<uint32_t>(set.rows));
    put_be32(images, static_cast<uint32_t>(set.cols));
    images.append(set.pixels.begin(), set.pixels.end());
    std::string labels;
    put_be32(labels, k_labels_magic);
    put_be32(labels, static_cast<uint32_t>(set.count));
    labels.append(set.labels.begin(), set.labels.end());
    if (auto ok = util::write_file_atomic(images_path, images, k_file_mode); !ok.ok()) {
        return ok;
    }
    return util::write_file_atomic(labels_path, labels, k_file_mode);
}

}  // namespace kftrain::trainer::data
