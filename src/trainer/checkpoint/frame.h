#pragma once

// The frame around every checkpoint file: pure byte logic, no libtorch, so that it can be
// tested and fuzzed on its own.
//
// Layout (integers little-endian):
//   header  8 bytes  magic "KFCKPT\r\n"
//           4 bytes  format version (k_frame_version)
//           4 bytes  CRC-32 (IEEE, as zlib's crc32) of the payload
//           8 bytes  payload length
//   payload          torch's serialized archive
//   footer  8 bytes  magic "KFCKEND\n"
// A file is accepted only when its size is exactly header + length + footer, both magics
// match, the version is known and the checksum matches.

#include <cstdint>
#include <string>
#include <string_view>

#include "util/result.h"

namespace kftrain::trainer::checkpoint {

// The frame format this trainer writes and reads.
constexpr uint32_t k_frame_version = 1;
// Bytes of the frame's header and footer.
constexpr std::size_t k_frame_header_size = 24;
constexpr std::size_t k_frame_footer_size = 8;

// Return the CRC-32 (IEEE polynomial, zlib's crc32) of bytes.
uint32_t crc32_of(std::string_view bytes);

// Return payload wrapped in a frame (header, payload, footer).
std::string encode_frame(std::string_view payload);

// Return the verified payload inside a framed file's bytes (a view into bytes), or an error
// saying what is wrong, without a file name: "empty file", "checksum mismatch (...)", ...
// Never crashes or reads out of bounds, whatever the input.
util::Result<std::string_view> read_frame(std::string_view bytes);

// Return whether bytes look like a checkpoint written before frames existed: no frame magic,
// and the zip archive torch writes ("PK\x03\x04"). Such a file cannot be verified.
bool is_legacy_checkpoint(std::string_view bytes);

}  // namespace kftrain::trainer::checkpoint
