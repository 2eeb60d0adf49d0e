#include "trainer/trainer_status/config.h"

#include <fmt/format.h>

#include "trainer/data/file_bytes.h"
#include "util/text.h"
#include "wire/status_server_env.h"

namespace kftrain::trainer::trainer_status {
namespace {

constexpr const char* k_url = wire::k_status_server_url_env;
constexpr const char* k_ca_cert = wire::k_status_server_ca_env;
constexpr const char* k_token = wire::k_status_server_token_env;

}  // namespace

util::Result<std::optional<ServerConfig>> read_server_config(const EnvLookup& env) {
    ServerConfig c;
    const std::pair<const char*, std::string*> vars[] = {
        {k_url, &c.url}, {k_ca_cert, &c.ca_cert}, {k_token, &c.token_file}};
    std::string missing;
    for (const auto& [name, value] : vars) {
        *value = env(name).value_or("");
        if (value->empty()) {
            missing += missing.empty() ? name : std::string(", ") + name;
        }
    }
    if (c.url.empty() && c.ca_cert.empty() && c.token_file.empty()) {
        return std::optional<ServerConfig>{};
    }
    if (!missing.empty()) {
        return util::error(
            fmt::format("{} must be set too, as Kubeflow Trainer sets all three", missing));
    }
    if (c.url.rfind("https://", 0) != 0) {
        return util::error(fmt::format("{} must be an https:// URL (got {})", k_url, c.url));
    }
    return std::optional<ServerConfig>{std::move(c)};
}

util::Result<std::string> read_token(const std::string& path) {
    auto bytes = data::read_file_bytes(path);
    if (!bytes.ok()) {
        return util::error("token file " + bytes.error());
    }
    std::string token = util::trim(*bytes);
    if (token.empty()) {
        return util::error(fmt::format("token file {}: empty", path));
    }
    return token;
}

}  // namespace kftrain::trainer::trainer_status
