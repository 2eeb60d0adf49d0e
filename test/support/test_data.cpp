#include "support/test_data.h"

#include <catch2/catch.hpp>
#include <cstdlib>

#include "manifest/load.h"
#include "support/files.h"
#include "support/paths.h"

namespace kftrain::test {

std::string read_test_data(const std::string& relative) {
    auto text = manifest::read_file(std::string(kftrain::test::test_data_dir()) + "/" + relative);
    if (!text) {
        FAIL(text.error());
    }
    return *text;
}

std::string read_example(const std::string& relative) {
    auto text =
        manifest::read_file(std::string(kftrain::test::source_dir()) + "/examples/" + relative);
    if (!text) {
        FAIL(text.error());
    }
    return *text;
}

bool matches_golden(const std::string& name, const std::string& text) {
    std::string path = std::string(kftrain::test::test_data_dir()) + "/golden/" + name;
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

}  // namespace kftrain::test
