#include "trainer/comm/host_group.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <climits>
#include <cstdint>
#include <cstring>
#include <ctime>
#include <new>
#include <random>
#include <stdexcept>

#include "util/fd/unique_fd.h"

namespace kftrain::trainer::comm {

namespace {

constexpr std::uint64_t k_magic = 0x316e69617274666bULL;  // "kftrain1"
constexpr std::size_t k_line = 64;
// How long a waiting rank spins before it sleeps on the futex, and how long it sleeps
// before it looks at its peers' health again.
constexpr int k_spins = 2000;
constexpr auto k_check_every = std::chrono::milliseconds(20);

struct Header {
    std::uint64_t magic;
    std::uint64_t world;
    std::uint64_t slot_bytes;
    alignas(k_line) std::atomic<std::uint32_t> arrived;  // every rank's barrier arrivals
};
static_assert(std::atomic<std::uint32_t>::is_always_lock_free);
static_assert(sizeof(std::atomic<std::uint32_t>) == sizeof(std::uint32_t));

// Held locked by its rank for as long as the rank has the segment open.
struct alignas(k_line) Alive {
    pthread_mutex_t mutex;
};

std::size_t round_up(std::size_t n, std::size_t to) {
    return (n + to - 1) / to * to;
}

// Where things lie in the segment: the header, a mutex per rank, the result area, then a
// slot per rank.
struct Layout {
    std::size_t alive = 0, result = 0, slots = 0, size = 0;
    Layout(std::size_t world, std::size_t slot_bytes) {
        alive = round_up(sizeof(Header), k_line);
        result = round_up(alive + world * sizeof(Alive), 4096);
        slots = result + slot_bytes;
        size = slots + world * slot_bytes;
    }
};

std::string errno_text(int err) {
    return std::strerror(err);
}

long futex(std::atomic<std::uint32_t>* word, int op, std::uint32_t value,
           const struct timespec* timeout) {
    return ::syscall(SYS_futex, reinterpret_cast<std::uint32_t*>(word), op, value, timeout, nullptr,
                     0);
}

void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    asm volatile("yield");
#endif
}

// Whether a barrier count has reached target, counting modulo 2^32.
bool reached(std::uint32_t count, std::uint32_t target) {
    return static_cast<std::int32_t>(count - target) >= 0;
}

// Add world ranks' n elements (rank r's bytes at source(r)) into out, divided by world for a
// mean, 16 at a time so that the compiler vectorizes it: the first two ranks' in one pass
// (each element read once and written once), then each further rank's onto out, the last
// pass dividing.
template <typename T, typename Source>
void reduce_ranks(T* __restrict out, Source source, std::size_t world, std::size_t n, ReduceOp op) {
    const auto of = [&](std::size_t r) { return reinterpret_cast<const T*>(source(r)); };
    if (world == 1) {
        std::memcpy(out, of(0), n * sizeof(T));
        return;
    }
    constexpr std::size_t k_block = 16;
    const std::size_t blocked = n / k_block * k_block;
    // into: out[i] = combine(a[i], b[i]) for two ranks' a and b; onto: out[i] =
    // combine(out[i], b[i]).
    const auto into = [&](const T* __restrict a, const T* __restrict b, auto combine) {
        for (std::size_t i = 0; i < blocked; i += k_block) {
            for (std::size_t j = 0; j < k_block; ++j) {
                out[i + j] = combine(a[i + j], b[i + j]);
            }
        }
        for (std::size_t i = blocked; i < n; ++i) {
            out[i] = combine(a[i], b[i]);
        }
    };
    const auto onto = [&](const T* __restrict b, auto combine) {
        for (std::size_t i = 0; i < blocked; i += k_block) {
            for (std::size_t j = 0; j < k_block; ++j) {
                out[i + j] = combine(out[i + j], b[i + j]);
            }
        }
        for (std::size_t i = blocked; i < n; ++i) {
            out[i] = combine(out[i], b[i]);
        }
    };
    const T divisor = static_cast<T>(world);
    const auto add = [](T x, T y) { return x + y; };
    const auto add_divide = [divisor](T x, T y) { return (x + y) / divisor; };
    const bool mean = op == ReduceOp::mean;
    if (world == 2) {
        mean ? into(of(0), of(1), add_divide) : into(of(0), of(1), add);
        return;
    }
    into(of(0), of(1), add);
    for (std::size_t r = 2; r + 1 < world; ++r) {
        onto(of(r), add);
    }
    mean ? onto(of(world - 1), add_divide) : onto(of(world - 1), add);
}

// The elements of pieces laid end to end, read by their position in the whole.
class Pieces {
  public:
    Pieces(const std::vector<HostPiece>& in, std::size_t element_bytes)
        : m_in(in), m_element(element_bytes) {
        m_starts.reserve(in.size() + 1);
        m_starts.push_back(0);
        for (const auto& piece : in) {
            m_starts.push_back(m_starts.back() + piece.count);
        }
    }
    std::size_t count() const { return m_starts.back(); }
    // Call visit(at, bytes, n) for each run of the elements [first, last) that lies in one
    // piece: n elements from position at, found at bytes.
    template <typename Visit>
    void each(std::size_t first, std::size_t last, Visit visit) const {
        auto i = static_cast<std::size_t>(
            std::upper_bound(m_starts.begin(), m_starts.end(), first) - m_starts.begin() - 1);
        for (; first < last; ++i) {
            const std::size_t end = std::min(last, m_starts[i + 1]);
            if (end > first) {
                visit(first,
                      static_cast<const char*>(m_in[i].data) + (first - m_starts[i]) * m_element,
                      end - first);
            }
            first = end;
        }
    }
    // Copy the elements [first, last) to to.
    void copy(std::size_t first, std::size_t last, char* to) const {
        each(first, last, [&](std::size_t at, const char* from, std::size_t n) {
            std::memcpy(to + (at - first) * m_element, from, n * m_element);
        });
    }

  private:
    const std::vector<HostPiece>& m_in;
    std::size_t m_element;
    std::vector<std::size_t> m_starts;  // each piece's position, then the count
};

}  // namespace

struct HostGroup::Impl {
    std::string name;
    int rank = 0;
    int world = 0;
    std::size_t slot_bytes = 0;
    Layout layout{0, 0};
    util::UniqueFd fd;
    void* base = MAP_FAILED;
    std::size_t mapped = 0;
    bool holds_alive = false;
    bool owns_name = false;  // created it and has not unlinked it yet
    bool broken = false;
    std::uint32_t barriers = 0;  // this rank's barriers so far

    Impl() = default;
    Impl(const Impl&) = delete;
    Impl& operator=(const Impl&) = delete;
    ~Impl() {
        if (holds_alive) {
            pthread_mutex_unlock(&alive(rank).mutex);
        }
        if (base != MAP_FAILED) {
            ::munmap(base, mapped);
        }
        fd.reset();
        if (owns_name) {
            ::shm_unlink(name.c_str());  // a group dropped before every rank opened it
        }
    }

    char* at(std::size_t offset) const { return static_cast<char*>(base) + offset; }
    Header& header() const { return *reinterpret_cast<Header*>(at(0)); }
    Alive& alive(int r) const {
        return reinterpret_cast<Alive*>(at(layout.alive))[static_cast<std::size_t>(r)];
    }
    char* slot(int r) const { return at(layout.slots + static_cast<std::size_t>(r) * slot_bytes); }

    util::Status map(std::size_t size) {
        base = ::mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd.get(), 0);
        if (base == MAP_FAILED) {
            return util::error(
                fmt::format("cannot map shared memory {}: {}", name, errno_text(errno)));
        }
        mapped = size;
        return util::ok_status();
    }

    // Return why the group cannot go on when a peer has let go of its mutex: it exited (the
    // kernel marks a robust mutex whose owner died) or closed the group; empty while all hold.
    std::string lost_peer() {
        for (int r = 0; r < world; ++r) {
            if (r == rank) {
                continue;
            }
            const int got = pthread_mutex_trylock(&alive(r).mutex);
            if (got == EBUSY) {
                continue;
            }
            if (got == EOWNERDEAD) {
                pthread_mutex_consistent(&alive(r).mutex);
            }
            if (got == 0 || got == EOWNERDEAD) {
                pthread_mutex_unlock(&alive(r).mutex);
            }
            return fmt::format("shared-memory all-reduce: rank {} {}", r,
                               got == EOWNERDEAD ? "exited" : "left the group");
        }
        return "";
    }

    // Wait until every rank has arrived at this rank's next barrier.
    void barrier(std::chrono::steady_clock::time_point deadline,
                 std::chrono::milliseconds timeout) {
        barriers += 1;
        const std::uint32_t target = barriers * static_cast<std::uint32_t>(world);
        auto& word = header().arrived;
        if (word.fetch_add(1, std::memory_order_acq_rel) + 1 == target) {
            futex(&word, FUTEX_WAKE, INT_MAX, nullptr);
            return;
        }
        for (int i = 0; i < k_spins; ++i) {
            if (reached(word.load(std::memory_order_acquire), target)) {
                return;
            }
            cpu_relax();
        }
        const struct timespec slice {
            0, std::chrono::duration_cast<std::chrono::nanoseconds>(k_check_every).count()
        };
        while (true) {
            const std::uint32_t seen = word.load(std::memory_order_acquire);
            if (reached(seen, target)) {
                return;
            }
            futex(&word, FUTEX_WAIT, seen, &slice);
            if (reached(word.load(std::memory_order_acquire), target)) {
                return;
            }
            // A peer that arrived and then left is no failure: look at the count once more.
            if (auto lost = lost_peer(); !lost.empty()) {
                if (reached(word.load(std::memory_order_acquire), target)) {
                    return;
                }
                broken = true;
                throw std::runtime_error(lost);
            }
            if (std::chrono::steady_clock::now() >= deadline) {
                broken = true;
                throw std::runtime_error(
                    fmt::format("shared-memory all-reduce: not done within {:g}s (a peer hangs)",
                                std::chrono::duration<double>(timeout).count()));
            }
        }
    }
};

HostGroup::HostGroup(std::unique_ptr<Impl> impl) : m_impl(std::move(impl)) {}

HostGroup::~HostGroup() = default;

util::Result<std::unique_ptr<HostGroup>> HostGroup::create(int world, std::size_t slot_bytes) {
    auto impl = std::make_unique<Impl>();
    impl->rank = 0;
    impl->world = world;
    impl->slot_bytes = round_up(std::max(slot_bytes, k_line), k_line);
    impl->layout = Layout(static_cast<std::size_t>(world), impl->slot_bytes);
    std::random_device random;
    const std::uint64_t token = (static_cast<std::uint64_t>(random()) << 32) ^ random();
    impl->name = fmt::format("/kftrain-{}-{:016x}", ::getpid(), token);
    impl->fd.reset(::shm_open(impl->name.c_str(), O_CREAT | O_EXCL | O_RDWR | O_CLOEXEC, 0600));
    if (!impl->fd) {
        return util::error(
            fmt::format("cannot create shared memory {}: {}", impl->name, errno_text(errno)));
    }
    impl->owns_name = true;
    // Reserve the pages now: a full /dev/shm is an error here rather than SIGBUS later.
    const std::size_t size = impl->layout.size;
    if (const int err = ::posix_fallocate(impl->fd.get(), 0, static_cast<off_t>(size)); err != 0) {
        return util::error(fmt::format("cannot reserve {:.1f} MiB of shared memory in /dev/shm: {}",
                                       static_cast<double>(size) / (1 << 20), errno_text(err)));
    }
    if (auto mapped = impl->map(size); !mapped.ok()) {
        return util::error(mapped.error());
    }
    auto* header = new (impl->at(0)) Header{};
    header->world = static_cast<std::uint64_t>(world);
    header->slot_bytes = impl->slot_bytes;
    header->arrived.store(0);
    pthread_mutexattr_t attr;
    pthread_mutexattr_init(&attr);
    pthread_mutexattr_setpshared(&attr, PTHREAD_PROCESS_SHARED);
    pthread_mutexattr_setrobust(&attr, PTHREAD_MUTEX_ROBUST);
    for (int r = 0; r < world; ++r) {
        pthread_mutex_init(&(new (&impl->alive(r)) Alive{})->mutex, &attr);
    }
    pthread_mutexattr_destroy(&attr);
    pthread_mutex_lock(&impl->alive(0).mutex);
    impl->holds_alive = true;
    std::atomic_thread_fence(std::memory_order_release);
    header->magic = k_magic;
    return std::unique_ptr<HostGroup>(new HostGroup(std::move(impl)));
}

util::Result<std::unique_ptr<HostGroup>> HostGroup::open(const std::string& name, int rank,
                                                         int world) {
    auto impl = std::make_unique<Impl>();
    impl->name = name;
    impl->rank = rank;
    impl->world = world;
    impl->fd.reset(::shm_open(name.c_str(), O_RDWR | O_CLOEXEC, 0));
    if (!impl->fd) {
        return util::error(
            fmt::format("cannot open shared memory {}: {}", name, errno_text(errno)));
    }
    struct stat st {};
    if (::fstat(impl->fd.get(), &st) != 0 ||
        static_cast<std::size_t>(st.st_size) < sizeof(Header)) {
        return util::error(fmt::format("shared memory {} is not a kftrain group", name));
    }
    if (auto mapped = impl->map(static_cast<std::size_t>(st.st_size)); !mapped.ok()) {
        return util::error(mapped.error());
    }
    const Header& header = impl->header();
    const std::uint64_t magic = header.magic;
    std::atomic_thread_fence(std::memory_order_acquire);
    const std::uint64_t header_world = header.world;
    const std::uint64_t slot_bytes = header.slot_bytes;
    if (magic != k_magic || header_world != static_cast<std::uint64_t>(world) ||
        slot_bytes < k_line || rank < 1 || rank >= world) {
        return util::error(
            fmt::format("shared memory {} is not a kftrain group of {} ranks", name, world));
    }
    impl->slot_bytes = static_cast<std::size_t>(slot_bytes);
    impl->layout = Layout(static_cast<std::size_t>(world), impl->slot_bytes);
    if (impl->mapped != impl->layout.size) {
        return util::error(fmt::format("shared memory {} is not a kftrain group", name));
    }
    if (const int got = pthread_mutex_trylock(&impl->alive(rank).mutex); got != 0) {
        return util::error(fmt::format("shared memory {}: rank {} is taken", name, rank));
    }
    impl->holds_alive = true;
    return std::unique_ptr<HostGroup>(new HostGroup(std::move(impl)));
}

const std::string& HostGroup::name() const {
    return m_impl->name;
}

void HostGroup::unlink() {
    ::shm_unlink(m_impl->name.c_str());
    m_impl->owns_name = false;
}

void HostGroup::allreduce(void* data, std::size_t count, HostType type,
                          std::chrono::milliseconds timeout, ReduceOp op) {
    allreduce({HostPiece{data, count}}, data, type, timeout, op);
}

void HostGroup::allreduce(const std::vector<HostPiece>& in, void* out, HostType type,
                          std::chrono::milliseconds timeout, ReduceOp op) {
    auto& g = *m_impl;
    if (g.broken) {
        throw std::runtime_error("shared-memory all-reduce: the group failed earlier");
    }
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    const std::size_t size = type == HostType::f32 ? sizeof(float) : sizeof(double);
    const Pieces pieces(in, size);
    const std::size_t count = pieces.count();
    const std::size_t per_chunk = g.slot_bytes / size;
    const auto world = static_cast<std::size_t>(g.world);
    char* slot = g.slot(g.rank);
    char* result = g.at(g.layout.result);
    for (std::size_t first = 0; first < count; first += per_chunk) {
        const std::size_t n = std::min(per_chunk, count - first);
        // This rank's share of the chunk, a multiple of 16 elements but the last. The others
        // read the rest from this rank's slot; the share it sums itself it reads from the
        // pieces.
        const std::size_t share = round_up((n + world - 1) / world, 16);
        const std::size_t lo = std::min(n, static_cast<std::size_t>(g.rank) * share);
        const std::size_t hi = std::min(n, lo + share);
        pieces.copy(first, first + lo, slot);
        pieces.copy(first + hi, first + n, slot + hi * size);
        g.barrier(deadline, timeout);
        pieces.each(first + lo, first + hi, [&](std::size_t at, const char* own, std::size_t m) {
            const std::size_t offset = (at - first) * size;
            const auto source = [&](std::size_t r) -> const char* {
                return r == static_cast<std::size_t>(g.rank) ? own
                                                             : g.slot(static_cast<int>(r)) + offset;
            };
            if (type == HostType::f32) {
                reduce_ranks(reinterpret_cast<float*>(result + offset), source, world, m, op);
            } else {
                reduce_ranks(reinterpret_cast<double*>(result + offset), source, world, m, op);
            }
        });
        g.barrier(deadline, timeout);
        std::memcpy(static_cast<char*>(out) + first * size, result, n * size);
    }
}

}  // namespace kftrain::trainer::comm
