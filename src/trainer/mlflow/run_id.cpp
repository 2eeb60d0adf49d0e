#include "trainer/mlflow/run_id.h"

#include <filesystem>
#include <fstream>

#include "trainer/data/file_bytes.h"
#include "util/files.h"

namespace kftrain::trainer::mlflow {

namespace fs = std::filesystem;

std::optional<std::string> read_run_id(const std::string& dir) {
    if (dir.empty()) {
        return std::nullopt;
    }
    std::ifstream in(fs::path(dir) / k_run_id_file);
    std::string id;
    if (!in || !std::getline(in, id)) {
        return std::nullopt;
    }
    while (!id.empty() && (id.back() == '\r' || id.back() == ' ')) {
        id.pop_back();
    }
    if (id.empty()) {
        return std::nullopt;
    }
    return id;
}

util::Status write_run_id(const std::string& dir, const std::string& run_id) {
    std::error_code ec;
    fs::create_directories(dir, ec);
    return util::write_file_atomic((fs::path(dir) / k_run_id_file).string(), run_id + "\n",
                                   data::k_file_mode);
}

}  // namespace kftrain::trainer::mlflow
