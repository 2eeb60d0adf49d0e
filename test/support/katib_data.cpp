#include "support/katib_data.h"

#include <catch2/catch.hpp>

#include "support/test_data.h"

namespace kftrain::test {

backend::kube::ClusterSearch read_katib_search(const std::string& name) {
    auto read =
        backend::kube::read_cluster_search(read_test_data("kube/experiment-" + name + ".json"),
                                           read_test_data("kube/trials-" + name + ".json"));
    if (!read) {
        FAIL(read.error());
    }
    return std::move(*read);
}

}  // namespace kftrain::test
