#include "trainer/mlflow_run_id.h"

#include <fmt/format.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

namespace kftrain::trainer {

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

Result<Unit> write_run_id(const std::string& dir, const std::string& run_id) {
    std::error_code ec;
    fs::create_directories(dir, ec);
    const fs::path path = fs::path(dir) / k_run_id_file;
    const fs::path tmp = fs::path(dir) / (std::string(k_run_id_file) + ".tmp");
    {
        std::ofstream out(tmp, std::ios::trunc);
        out << run_id << "\n";
        out.flush();
        if (!out) {
            return Error{fmt::format("cannot write {}", tmp.string())};
        }
    }
    fs::rename(tmp, path, ec);
    if (ec) {
        return Error{
            fmt::format("cannot rename {} to {}: {}", tmp.string(), path.string(), ec.message())};
    }
    return Unit{};
}

}  // namespace kftrain::trainer
