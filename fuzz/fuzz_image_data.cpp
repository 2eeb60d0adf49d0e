// Fuzz the IDX (MNIST) and CIFAR-10 readers through files, as the trainer reads them.
// Input: a mode byte, then the data. Mode bit 0: IDX (else CIFAR-10); bit 1: the files are
// gzipped (the data compressed, or, with bit 2 too, the data itself as the .gz, so corrupt
// gzip is read). CIFAR-10: the data is one batch file. IDX: the 2 bytes after the mode are
// the images file's length (big-endian, clamped to what is there), then the images file, and
// the rest is the labels file.
// Properties: nothing crashes; a set that reads has positive dimensions, count images of
// channels x rows x cols bytes, count labels, and every label below 10.

#include <unistd.h>
#include <zlib.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "fuzz_input.h"
#include "trainer/data/cifar.h"
#include "trainer/data/idx.h"

namespace {

using namespace kftrain::trainer::data;
namespace fs = std::filesystem;

std::string make_work_dir() {
    std::string templ = (fs::temp_directory_path() / "kftrain-fuzz-XXXXXX").string();
    if (::mkdtemp(templ.data()) == nullptr) {
        kftrain::fuzz::fail("cannot create a temporary directory");
    }
    return templ;
}

// Return the directory the files are written to, removed at exit.
const std::string& work_dir() {
    static const std::string dir = make_work_dir();
    // Registered after dir's destructor, so it runs before it.
    static const bool cleanup = (std::atexit([] { fs::remove_all(work_dir()); }), true);
    (void)cleanup;
    return dir;
}

// Write bytes as path (raw), path.gz (compressed), or path.gz (the bytes themselves).
std::string write_input(const std::string& name, const std::string& bytes, int mode) {
    const std::string path = work_dir() + "/" + name;
    fs::remove(path);
    fs::remove(path + ".gz");
    const bool gzipped = (mode & 2) != 0;
    const bool raw_gz = (mode & 4) != 0;
    if (gzipped && !raw_gz) {
        gzFile file = gzopen((path + ".gz").c_str(), "wb1");
        if (file == nullptr ||
            (!bytes.empty() &&
             gzwrite(file, bytes.data(), static_cast<unsigned>(bytes.size())) <= 0)) {
            kftrain::fuzz::fail("cannot write " + path + ".gz");
        }
        gzclose(file);
        return path;
    }
    std::FILE* file = std::fopen((gzipped ? path + ".gz" : path).c_str(), "wb");
    if (file == nullptr || std::fwrite(bytes.data(), 1, bytes.size(), file) != bytes.size()) {
        kftrain::fuzz::fail("cannot write " + path);
    }
    std::fclose(file);
    return path;
}

void check_set(const ImageSet& set) {
    if (set.count <= 0 || set.channels <= 0 || set.rows <= 0 || set.cols <= 0) {
        kftrain::fuzz::fail("a set read with count " + std::to_string(set.count) + " and " +
                            std::to_string(set.channels) + "x" + std::to_string(set.rows) + "x" +
                            std::to_string(set.cols) + " images");
    }
    if (set.pixels.size() / static_cast<uint64_t>(set.image_bytes()) !=
            static_cast<uint64_t>(set.count) ||
        set.pixels.size() % static_cast<uint64_t>(set.image_bytes()) != 0) {
        kftrain::fuzz::fail("pixels are not count whole images");
    }
    if (set.labels.size() != static_cast<uint64_t>(set.count)) {
        kftrain::fuzz::fail("labels are not one per image");
    }
    for (const auto label : set.labels) {
        if (label >= k_num_classes) {
            kftrain::fuzz::fail("a label is not below 10");
        }
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
    if (size < 1) {
        return 0;
    }
    const int mode = data[0];
    const std::string rest(reinterpret_cast<const char*>(data) + 1, size - 1);
    if ((mode & 1) != 0) {
        if (rest.size() < 2) {
            return 0;
        }
        const std::size_t images_size = std::min<std::size_t>(
            (static_cast<uint8_t>(rest[0]) << 8) | static_cast<uint8_t>(rest[1]), rest.size() - 2);
        const std::string images = rest.substr(2, images_size);
        const std::string labels = rest.substr(2 + images_size);
        auto set = read_idx_pair(write_input("images-idx3-ubyte", images, mode),
                                 write_input("labels-idx1-ubyte", labels, mode));
        if (set.ok()) {
            check_set(*set);
        }
        return 0;
    }
    auto set = read_cifar_batches({write_input("data_batch_1.bin", rest, mode)});
    if (set.ok()) {
        check_set(*set);
    }
    return 0;
}
