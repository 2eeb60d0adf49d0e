#include "staging/tar_reader.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <optional>

namespace kftrain::staging {
namespace {

constexpr size_t k_block = 512;
constexpr uint64_t k_max_meta = uint64_t{1} << 20;

// The header's fields: offset and length (POSIX.1-1988 ustar, which GNU tar extends).
struct Field {
    size_t offset;
    size_t length;
};
constexpr Field k_name{0, 100};
constexpr Field k_mode{100, 8};
constexpr Field k_size{124, 12};
constexpr Field k_mtime{136, 12};
constexpr Field k_checksum{148, 8};
constexpr size_t k_type_flag = 156;
constexpr Field k_link{157, 100};
constexpr Field k_magic{257, 6};
constexpr Field k_prefix{345, 155};

std::string text_field(const char* block, Field field) {
    const char* begin = block + field.offset;
    return std::string(begin, strnlen(begin, field.length));
}

// An octal number padded with spaces or NULs, or GNU's base-256 form (first byte's high bit
// set) for sizes past 8 GiB; nullopt when it is neither.
std::optional<uint64_t> number_field(const char* block, Field field) {
    const auto* bytes = reinterpret_cast<const unsigned char*>(block + field.offset);
    if ((bytes[0] & 0x80) != 0) {
        if (bytes[0] != 0x80) {
            return std::nullopt;  // negative, or more than 64 bits
        }
        uint64_t value = 0;
        for (size_t i = 1; i < field.length; ++i) {
            if (value > (UINT64_MAX >> 8)) {
                return std::nullopt;
            }
            value = (value << 8) | bytes[i];
        }
        return value;
    }
    size_t i = 0;
    while (i < field.length && (bytes[i] == ' ' || bytes[i] == 0)) {
        ++i;
    }
    uint64_t value = 0;
    bool digits = false;
    for (; i < field.length && bytes[i] >= '0' && bytes[i] <= '7'; ++i) {
        if (value > (UINT64_MAX >> 3)) {
            return std::nullopt;
        }
        value = (value << 3) | static_cast<uint64_t>(bytes[i] - '0');
        digits = true;
    }
    for (; i < field.length; ++i) {
        if (bytes[i] != ' ' && bytes[i] != 0) {
            return std::nullopt;
        }
    }
    return digits ? std::optional<uint64_t>(value) : std::optional<uint64_t>(0);
}

// The stored checksum matches the header's bytes summed with the checksum field as spaces
// (unsigned, or signed as some old tars summed).
bool checksum_matches(const char* block) {
    auto stored = number_field(block, k_checksum);
    if (!stored) {
        return false;
    }
    int64_t unsigned_sum = 0;
    int64_t signed_sum = 0;
    for (size_t i = 0; i < k_block; ++i) {
        const bool in_field = i >= k_checksum.offset && i < k_checksum.offset + k_checksum.length;
        unsigned char u = in_field ? ' ' : static_cast<unsigned char>(block[i]);
        unsigned_sum += u;
        signed_sum += in_field ? ' ' : static_cast<signed char>(block[i]);
    }
    return static_cast<int64_t>(*stored) == unsigned_sum ||
           static_cast<int64_t>(*stored) == signed_sum;
}

TarEntry::Type type_of(char flag) {
    switch (flag) {
        case '0':
        case '\0':
        case '7':
            return TarEntry::Type::file;
        case '1':
            return TarEntry::Type::hard_link;
        case '2':
            return TarEntry::Type::symlink;
        case '3':
        case '4':
            return TarEntry::Type::device;
        case '5':
            return TarEntry::Type::directory;
        case '6':
            return TarEntry::Type::fifo;
        default:
            return TarEntry::Type::other;
    }
}

uint64_t padding_of(uint64_t size) {
    return (k_block - size % k_block) % k_block;
}

// A pax size: decimal digits only.
std::optional<uint64_t> decimal(const std::string& text) {
    if (text.empty() || text.size() > 19) {
        return std::nullopt;
    }
    uint64_t value = 0;
    for (char c : text) {
        if (c < '0' || c > '9') {
            return std::nullopt;
        }
        value = value * 10 + static_cast<uint64_t>(c - '0');
    }
    return value;
}

bool all_zero(const char* block) {
    return std::all_of(block, block + k_block, [](char c) { return c == 0; });
}

}  // namespace

util::Status TarReader::feed(const char* data, size_t size) {
    while (size > 0 && m_state != State::done) {
        size_t n = 0;
        if (m_state == State::header) {
            n = std::min(k_block - m_block_fill, size);
            std::memcpy(m_block + m_block_fill, data, n);
            m_block_fill += n;
            if (m_block_fill == k_block) {
                m_block_fill = 0;
                if (auto read = on_header(); !read) {
                    return read;
                }
            }
        } else if (m_state == State::padding) {
            n = static_cast<size_t>(std::min<uint64_t>(m_padding, size));
            m_padding -= n;
            if (m_padding == 0) {
                m_state = State::header;
            }
        } else {
            n = static_cast<size_t>(std::min<uint64_t>(m_left, size));
            if (m_state == State::content) {
                if (auto passed = m_sink.content(data, n); !passed) {
                    return passed;
                }
            } else {
                m_meta.append(data, n);
            }
            m_left -= n;
            if (m_left == 0) {
                auto ended = m_state == State::content ? m_sink.end() : on_meta_complete();
                m_started = false;
                if (!ended) {
                    return ended;
                }
                m_state = m_padding > 0 ? State::padding : State::header;
            }
        }
        data += n;
        size -= n;
    }
    return util::ok_status();
}

util::Status TarReader::finish() const {
    if (m_state == State::done) {
        return util::ok_status();
    }
    if (m_started || m_state == State::meta || m_block_fill != 0) {
        return util::error("the archive ended inside a member: the copy was cut short");
    }
    // Every member whole, but no end-of-archive blocks (GNU and busybox tar both write them):
    // the stream was cut between two members, or never started.
    return util::error("the archive ended without its end marker: the copy was cut short");
}

util::Status TarReader::on_header() {
    if (all_zero(m_block)) {
        m_state = State::done;  // the end-of-archive marker; what follows is record padding
        return util::ok_status();
    }
    if (!checksum_matches(m_block)) {
        return util::error("not a tar archive, or a damaged one: a header's checksum is wrong");
    }
    auto size = number_field(m_block, k_size);
    auto mode = number_field(m_block, k_mode);
    auto mtime = number_field(m_block, k_mtime);
    if (!size || !mode || !mtime) {
        return util::error("a damaged tar header: its size, mode or time is not a number");
    }
    const char flag = m_block[k_type_flag];
    m_padding = padding_of(*size);
    if (flag == 'L' || flag == 'K' || flag == 'x' || flag == 'g') {
        if (*size > k_max_meta) {
            return util::error(
                fmt::format("a tar long-name or pax header of {} bytes: more than 1 MiB", *size));
        }
        m_meta_type = flag;
        m_meta.clear();
        m_left = *size;
        m_state = State::meta;
        return m_left == 0 ? on_meta_complete() : util::ok_status();
    }
    TarEntry entry;
    entry.type_flag = flag;
    entry.type = type_of(flag);
    entry.mode = static_cast<uint32_t>(*mode & 07777);
    entry.size = m_pax_has_size ? m_pax_size : *size;
    entry.modified = static_cast<int64_t>(std::min<uint64_t>(*mtime, INT64_MAX));
    const bool posix = text_field(m_block, k_magic) == "ustar";
    std::string name = text_field(m_block, k_name);
    if (posix && m_block[k_prefix.offset] != 0) {
        name = text_field(m_block, k_prefix) + "/" + name;
    }
    entry.name = !m_pax_path.empty() ? m_pax_path : !m_long_name.empty() ? m_long_name : name;
    const std::string link = text_field(m_block, k_link);
    entry.link = !m_pax_link.empty() ? m_pax_link : !m_long_link.empty() ? m_long_link : link;
    m_padding = padding_of(entry.size);
    m_long_name.clear();
    m_long_link.clear();
    m_pax_path.clear();
    m_pax_link.clear();
    m_pax_has_size = false;
    return start_member(std::move(entry));
}

util::Status TarReader::start_member(TarEntry entry) {
    if (auto begun = m_sink.begin(entry); !begun) {
        return begun;
    }
    m_left = entry.size;
    if (m_left == 0) {
        m_state = State::header;
        return m_sink.end();
    }
    m_started = true;
    m_state = State::content;
    return util::ok_status();
}

// A pax record is "LENGTH KEY=VALUE\n", LENGTH counting the whole record.
util::Status TarReader::on_meta_complete() {
    m_state = m_padding > 0 ? State::padding : State::header;
    if (m_meta_type == 'L' || m_meta_type == 'K') {
        std::string text(m_meta.c_str());  // up to the first NUL
        (m_meta_type == 'L' ? m_long_name : m_long_link) = text;
        return util::ok_status();
    }
    size_t at = 0;
    while (at < m_meta.size()) {
        size_t space = m_meta.find(' ', at);
        uint64_t length = 0;
        if (space == std::string::npos || space == at || space - at > 8) {
            return util::error("a damaged pax header in the tar archive");
        }
        for (size_t i = at; i < space; ++i) {
            if (m_meta[i] < '0' || m_meta[i] > '9') {
                return util::error("a damaged pax header in the tar archive");
            }
            length = length * 10 + static_cast<uint64_t>(m_meta[i] - '0');
        }
        if (length <= space - at + 1 || at + length > m_meta.size() ||
            m_meta[at + length - 1] != '\n') {
            return util::error("a damaged pax header in the tar archive");
        }
        std::string record = m_meta.substr(space + 1, at + length - space - 2);
        at += length;
        size_t equals = record.find('=');
        if (equals == std::string::npos || m_meta_type == 'g') {
            continue;  // global headers set nothing kftrain keeps
        }
        std::string key = record.substr(0, equals);
        std::string value = record.substr(equals + 1);
        if (key == "path") {
            m_pax_path = value;
        } else if (key == "linkpath") {
            m_pax_link = value;
        } else if (key == "size") {
            auto size = decimal(value);
            if (!size) {
                return util::error("a damaged pax header in the tar archive: size " + value);
            }
            m_pax_has_size = true;
            m_pax_size = *size;
        }
    }
    return util::ok_status();
}

}  // namespace kftrain::staging
