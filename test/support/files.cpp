#include "support/files.h"

#include <sys/stat.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "manifest/load.h"

namespace kftrain::test {

std::string read_test_data(const std::string& relative) {
    auto text = manifest::read_file(std::string(KFTRAIN_TEST_DATA_DIR) + "/" + relative);
    if (!text) {
        FAIL(text.error());
    }
    return *text;
}

bool matches_golden(const std::string& name, const std::string& text) {
    std::string path = std::string(KFTRAIN_TEST_DATA_DIR) + "/golden/" + name;
    const char* update = std::getenv("KFTRAIN_UPDATE_GOLDEN");
    if (update != nullptr && std::string(update) == "1") {
        write_file(path, text);
        return true;
    }
    auto golden = manifest::read_file(path);
    if (!golden) {
        FAIL(golden.error() << " (run with KFTRAIN_UPDATE_GOLDEN=1 to create it)");
    }
    return *golden == text;
}

std::string make_temp_dir() {
    std::string pattern = "/tmp/kftrain-test-XXXXXX";
    char* made = ::mkdtemp(pattern.data());
    REQUIRE(made != nullptr);
    return made;
}

void write_file(const std::string& path, const std::string& text) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << text;
    REQUIRE(out.good());
}

std::string read_bytes(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
}

unsigned mode_of(const std::string& path) {
    struct stat st {};
    REQUIRE(::lstat(path.c_str(), &st) == 0);
    return st.st_mode;
}

}  // namespace kftrain::test
