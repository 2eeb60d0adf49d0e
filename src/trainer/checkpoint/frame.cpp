#include "trainer/checkpoint/frame.h"

#include <fmt/format.h>
#include <zlib.h>

#include <algorithm>
#include <limits>

namespace kftrain::trainer::checkpoint {
namespace {

constexpr std::string_view k_header_magic{"KFCKPT\r\n", 8};
constexpr std::string_view k_footer_magic{"KFCKEND\n", 8};
constexpr std::string_view k_zip_magic{"PK\x03\x04", 4};

void put_le(std::string& out, uint64_t value, int bytes) {
    for (int i = 0; i < bytes; ++i) {
        out.push_back(static_cast<char>((value >> (8 * i)) & 0xff));
    }
}

// Read a little-endian integer of the given width at offset; the caller checks the bounds.
uint64_t get_le(std::string_view bytes, std::size_t offset, int width) {
    uint64_t value = 0;
    for (int i = 0; i < width; ++i) {
        value |= static_cast<uint64_t>(static_cast<unsigned char>(bytes[offset + i])) << (8 * i);
    }
    return value;
}

util::Error frame_error(std::string message) {
    return util::error(std::move(message));
}

}  // namespace

uint32_t crc32_of(std::string_view bytes) {
    uLong crc = ::crc32(0L, Z_NULL, 0);
    const auto* data = reinterpret_cast<const Bytef*>(bytes.data());
    std::size_t left = bytes.size();
    // zlib takes uInt lengths: feed large inputs in chunks.
    constexpr std::size_t k_chunk = std::size_t{1} << 30;
    while (left > 0) {
        const std::size_t n = std::min(left, k_chunk);
        crc = ::crc32(crc, data, static_cast<uInt>(n));
        data += n;
        left -= n;
    }
    return static_cast<uint32_t>(crc);
}

std::string encode_frame(std::string_view payload) {
    std::string out;
    out.reserve(k_frame_header_size + payload.size() + k_frame_footer_size);
    out.append(k_header_magic);
    put_le(out, k_frame_version, 4);
    put_le(out, crc32_of(payload), 4);
    put_le(out, payload.size(), 8);
    out.append(payload);
    out.append(k_footer_magic);
    return out;
}

util::Result<std::string_view> read_frame(std::string_view bytes) {
    if (bytes.empty()) {
        return frame_error("empty file");
    }
    if (bytes.substr(0, k_header_magic.size()) != k_header_magic) {
        return frame_error(is_legacy_checkpoint(bytes)
                               ? "no checksum frame (written by an older trainer)"
                               : "not a kftrain checkpoint (no frame magic)");
    }
    const std::size_t framing = k_frame_header_size + k_frame_footer_size;
    if (bytes.size() < framing) {
        return frame_error(
            fmt::format("truncated: {} bytes, less than the {}-byte frame", bytes.size(), framing));
    }
    const auto version = static_cast<uint32_t>(get_le(bytes, 8, 4));
    if (version != k_frame_version) {
        return frame_error(fmt::format("unsupported frame version {} (this trainer reads {})",
                                       version, k_frame_version));
    }
    const auto stored_crc = static_cast<uint32_t>(get_le(bytes, 12, 4));
    const uint64_t length = get_le(bytes, 16, 8);
    const std::size_t room = bytes.size() - framing;
    if (length != room) {
        return frame_error(fmt::format("{}: header says {} payload bytes, the file holds {}",
                                       length > room ? "truncated" : "trailing bytes", length,
                                       room));
    }
    const auto payload = bytes.substr(k_frame_header_size, room);
    if (bytes.substr(k_frame_header_size + room) != k_footer_magic) {
        return frame_error("truncated or damaged: footer magic missing");
    }
    const uint32_t crc = crc32_of(payload);
    if (crc != stored_crc) {
        return frame_error(
            fmt::format("checksum mismatch (stored {:08x}, computed {:08x}): the file is damaged",
                        stored_crc, crc));
    }
    return payload;
}

bool is_legacy_checkpoint(std::string_view bytes) {
    return bytes.substr(0, k_zip_magic.size()) == k_zip_magic;
}

}  // namespace kftrain::trainer::checkpoint
