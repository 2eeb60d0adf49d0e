#include "backend/kube/usage/node_usage.h"

#include "backend/kube/doctor/cluster_reads.h"
#include "backend/kube/kubectl_errors.h"
#include "backend/kube/logs.h"
#include "job/exit_codes.h"
#include "util/text.h"

namespace kftrain::backend::kube {

util::Result<job::NodeUsageList> read_node_usage(KubeQueries& queries) {
    Read nodes = util::error("not read");
    Read pods = util::error("not read");
    for_each_parallel(2, 2, [&](size_t call) {
        if (call == 0) {
            nodes = queries.call({"get", "nodes", "-o", "json"}, false);
        } else {
            pods = queries.call({"get", "pods", "-A", "-o", "json",
                                 "--field-selector=status.phase!=Succeeded,status.phase!=Failed"},
                                false);
        }
    });
    if (!nodes) {
        return util::error("listing the nodes: " + nodes.error(), k_exit_cluster);
    }
    if (!nodes->ok()) {
        return kubectl_failure(*nodes, "listing the nodes");
    }
    auto read = usage::read_nodes(nodes->out);
    if (!read) {
        return util::error("listing the nodes: kubectl printed " + read.error(), k_exit_cluster);
    }
    job::NodeUsageList list{std::move(*read), {}};
    if (!pods || !pods->ok()) {
        list.warnings.push_back(
            "could not list the pods of every namespace, so what the nodes have allocated is "
            "unknown (allocatable only): " +
            (pods ? printable_line(util::trim(pods->err)) : pods.error()));
        return list;
    }
    if (auto added = usage::add_pod_requests(list.nodes, pods->out); !added) {
        list.warnings.push_back("the pods of every namespace could not be read (" + added.error() +
                                "): allocatable only");
    }
    return list;
}

}  // namespace kftrain::backend::kube
