#include "trainer/startup/env.h"

#include <fmt/format.h>

#include <cstdlib>

namespace kftrain::trainer {
namespace {

// Read text as a whole decimal integer of at least min; nullopt otherwise.
std::optional<int> to_int(const std::string& text, int min) {
    try {
        std::size_t used = 0;
        const int value = std::stoi(text, &used);
        if (used == text.size() && value >= min) {
            return value;
        }
    } catch (const std::exception&) {
    }
    return std::nullopt;
}

util::Result<int> parse_int(const EnvLookup& env, const std::string& name, int fallback, int min) {
    const auto raw = env(name);
    if (!raw || raw->empty()) {
        return fallback;
    }
    if (auto value = to_int(*raw, min)) {
        return *value;
    }
    return util::error(fmt::format("{}: must be an integer >= {} (got {})", name, min, *raw));
}

// A TCP port from name: 1 to 65535 (a larger number was cut to 16 bits: 70000 listened on 4464).
util::Result<int> parse_port(const EnvLookup& env, const std::string& name, int fallback) {
    const auto raw = env(name);
    const auto port = raw && !raw->empty() ? to_int(*raw, 1) : std::optional<int>(fallback);
    if (!port || *port > 65535) {
        return util::error(fmt::format("{}: must be a port from 1 to 65535 (got {})", name, *raw));
    }
    return *port;
}

// Processes per pod from PET_NPROC_PER_NODE: a number, or the operator's words. auto and
// cpu run one process per pod (its intra-op threads already use the pod's CPUs); gpu runs one
// per CUDA device libtorch sees, and is an error where it sees none.
util::Result<int> parse_nproc(const EnvLookup& env, const TorchCudaProbe& cuda) {
    const auto raw = env("PET_NPROC_PER_NODE");
    if (raw && (*raw == "auto" || *raw == "cpu")) {
        return 1;
    }
    if (raw && *raw == "gpu") {
        const TorchCuda facts = cuda ? cuda() : TorchCuda{};
        if (!facts.built) {
            return util::error(
                "PET_NPROC_PER_NODE: gpu needs a CUDA build of kftrain-trainer; this one "
                "runs on CPU (got gpu)");
        }
        if (facts.devices < 1) {
            return util::error(
                "PET_NPROC_PER_NODE: gpu needs a visible CUDA device; libtorch sees none "
                "(check CUDA_VISIBLE_DEVICES and the driver) (got gpu)");
        }
        return facts.devices;
    }
    return parse_int(env, "PET_NPROC_PER_NODE", 1, 1);
}

std::string get_or(const EnvLookup& env, const std::string& name, const std::string& fallback) {
    const auto raw = env(name);
    return raw && !raw->empty() ? *raw : fallback;
}

bool is_set(const EnvLookup& env, const char* name) {
    const auto raw = env(name);
    return raw && !raw->empty();
}

// Tell whether PET_* say where this process sits: always with several processes per node
// (v1's nprocPerNode), and under Trainer v2, which sets PET_* but neither WORLD_SIZE nor RANK.
// Otherwise v1's WORLD_SIZE and RANK decide, as they always did.
bool node_layout_from_pet(const EnvLookup& env, int nproc) {
    if (nproc > 1) {
        return true;
    }
    if (is_set(env, "WORLD_SIZE") || is_set(env, "RANK")) {
        return false;
    }
    for (const char* name : {"PET_NNODES", "PET_NODE_RANK", "PET_MASTER_ADDR", "PET_MASTER_PORT"}) {
        if (is_set(env, name)) {
            return true;
        }
    }
    return false;
}

// Nodes from PET_NNODES: a number, or the operator's MIN:MAX under an elasticPolicy. The
// trainer does no rendezvous, so with a range it trains on the pods the operator started: v1's
// WORLD_SIZE (every replica, the Master too, times the processes per node) over nproc. Without
// WORLD_SIZE only a range of one number says how many.
util::Result<int> parse_nnodes(const EnvLookup& env, int nproc) {
    const auto raw = env("PET_NNODES");
    const auto colon = raw ? raw->find(':') : std::string::npos;
    if (colon == std::string::npos) {
        return parse_int(env, "PET_NNODES", 1, 1);
    }
    const auto min = to_int(raw->substr(0, colon), 1);
    const auto max = to_int(raw->substr(colon + 1), 1);
    if (!min || !max || *min > *max) {
        return util::error(fmt::format(
            "PET_NNODES: must be an integer >= 1 or MIN:MAX with 1 <= MIN <= MAX (got {})", *raw));
    }
    const auto world = parse_int(env, "WORLD_SIZE", 0, 1);
    if (!world.ok()) {
        return util::error(world.error());
    }
    if (*world == 0) {
        if (*min != *max) {
            return util::error(
                fmt::format("PET_NNODES: a range needs WORLD_SIZE to say how many nodes started: "
                            "kftrain-trainer does no elastic rendezvous (got {})",
                            *raw));
        }
        return *min;
    }
    if (*world % nproc != 0) {
        return util::error(fmt::format(
            "WORLD_SIZE: must be a multiple of the {} processes per node (PET_NPROC_PER_NODE) "
            "(got {})",
            nproc, *world));
    }
    return *world / nproc;
}

// Place this process as torchrun would from PET_*: world = nnodes * nproc, global rank =
// node_rank * nproc + local rank. A pod with nproc > 1 that is not yet spawned launches its
// ranks (spawn_local) and trains none itself.
util::Status place_by_node(const EnvLookup& env, int nproc, DistEnv& out) {
    const auto nnodes = parse_nnodes(env, nproc);
    if (!nnodes.ok()) {
        return util::error(nnodes.error());
    }
    // Unset, the node rank is 0 on a single node, as torchrun's --node-rank defaults; on
    // several it is v1's RANK, the replica's index, where the operator sets no PET_NODE_RANK.
    const auto node = parse_int(env, "PET_NODE_RANK", *nnodes == 1 ? 0 : out.rank, 0);
    const auto pet_port = parse_port(env, "PET_MASTER_PORT", out.master_port);
    for (const auto* r : {&node, &pet_port}) {
        if (!r->ok()) {
            return util::error(r->error());
        }
    }
    if (*node >= *nnodes) {
        return util::error(
            fmt::format("PET_NODE_RANK must be < PET_NNODES (got {} of {})", *node, *nnodes));
    }
    out.node_rank = *node;
    out.local_procs = nproc;
    out.master_addr = get_or(env, "PET_MASTER_ADDR", out.master_addr);
    out.master_port = *pet_port;
    out.world_size = *nnodes * nproc;
    const bool spawned = env(k_spawned_env).has_value();
    out.spawn_local = spawned ? 1 : nproc;
    out.rank = *node * nproc + (spawned ? out.local_rank : 0);
    if (!spawned) {
        out.local_rank = 0;
    }
    return util::ok_status();
}

}  // namespace

EnvLookup process_env() {
    return [](const std::string& name) -> std::optional<std::string> {
        const char* value = std::getenv(name.c_str());
        if (value == nullptr) {
            return std::nullopt;
        }
        return std::string(value);
    };
}

bool is_loopback(const std::string& addr) {
    return addr == "localhost" || addr.rfind("127.", 0) == 0 || addr == "::1";
}

util::Result<DistEnv> parse_dist_env(const EnvLookup& env, const TorchCudaProbe& cuda) {
    DistEnv out;
    const auto world = parse_int(env, "WORLD_SIZE", 1, 1);
    const auto rank = parse_int(env, "RANK", 0, 0);
    const auto local = parse_int(env, "LOCAL_RANK", 0, 0);
    const auto port = parse_port(env, "MASTER_PORT", 29500);
    const auto nproc = parse_nproc(env, cuda);
    for (const auto* r : {&world, &rank, &local, &port, &nproc}) {
        if (!r->ok()) {
            return util::error(r->error());
        }
    }
    out.world_size = *world;
    out.rank = *rank;
    out.local_rank = *local;
    out.master_port = *port;
    out.master_addr = get_or(env, "MASTER_ADDR", "127.0.0.1");
    out.socket_ifname = get_or(env, "GLOO_SOCKET_IFNAME", "");
    if (node_layout_from_pet(env, *nproc)) {
        if (auto placed = place_by_node(env, *nproc, out); !placed.ok()) {
            return util::error(placed.error());
        }
    }
    if (*nproc == 1 && is_loopback(out.master_addr)) {
        out.local_procs = out.world_size;  // a loopback master means every rank is on this host
        if (!env("LOCAL_RANK")) {
            // As torchrun on one node: the rank is the local rank, so the ranks of a job run
            // on one host (the local backend, tests) take different CUDA devices.
            out.local_rank = out.rank;
        }
    }
    if (out.rank >= out.world_size) {
        return util::error(
            fmt::format("RANK: must be below WORLD_SIZE {} (got {})", out.world_size, out.rank));
    }
    return out;
}

}  // namespace kftrain::trainer
