#include "job/names.h"

#include <fmt/format.h>

#include "manifest/validate.h"

namespace kftrain::job {

util::Status check_object_name(const std::string& what, const std::string& name) {
    if (manifest::is_dns1123_subdomain(name)) {
        return util::ok_status();
    }
    return util::error(fmt::format(
        "{}: must be a Kubernetes object name: lower-case letters, digits, '-' and '.', "
        "starting and ending with a letter or digit, at most 253 characters (got '{}')",
        what, name));
}

}  // namespace kftrain::job
