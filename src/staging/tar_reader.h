#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "util/result.h"

namespace kftrain::staging {

// One member of a tar archive, as its header (and any GNU long-name or pax header before it)
// gives it.
struct TarEntry {
    enum class Type { file, hard_link, symlink, device, fifo, directory, other };
    std::string name;  // as stored: "./train/a.bin", "train/", "/etc/passwd"
    Type type = Type::other;
    char type_flag = '0';  // the header's own flag, to name an unknown one
    uint32_t mode = 0;     // the permission bits, setuid and setgid included
    uint64_t size = 0;     // bytes of content that follow (files only)
    int64_t modified = 0;  // seconds since the epoch
    std::string link;      // a link's target
};

// What the reader hands on as it reads an archive.
class TarSink {
  public:
    virtual ~TarSink() = default;
    // Return whether a member is wanted at all: read_tree neither hands on one that is not nor,
    // for a directory, reads what is under it. The tar reader asks nothing.
    virtual bool wants(const TarEntry& /*entry*/) { return true; }
    // A member starts; its content follows through content() (files only).
    virtual util::Status begin(const TarEntry& entry) = 0;
    virtual util::Status content(const char* data, size_t size) = 0;
    // The member's content is complete.
    virtual util::Status end() = 0;
};

// Reads a tar stream (POSIX ustar, GNU and pax, as GNU tar and busybox tar write them) fed in
// pieces of any size, and passes each member to a sink. It only parses: what to do with a
// member is the sink's business. A damaged header, a checksum that does not match, a long name
// or pax header over 1 MiB, or a stream that ends inside a member is an error.
class TarReader {
  public:
    explicit TarReader(TarSink& sink) : m_sink(sink) {}

    // Read the next piece of the stream.
    util::Status feed(const char* data, size_t size);
    // The stream ended: an error unless it ended with its end-of-archive blocks (a stream cut
    // between two members, or an empty one, is one cut short).
    util::Status finish() const;

  private:
    enum class State { header, content, meta, padding, done };

    util::Status on_header();
    util::Status on_meta_complete();
    util::Status start_member(TarEntry entry);

    TarSink& m_sink;
    State m_state = State::header;
    char m_block[512] = {};
    size_t m_block_fill = 0;
    uint64_t m_left = 0;     // content (or meta) bytes still to come
    uint64_t m_padding = 0;  // bytes to skip after it
    char m_meta_type = 0;    // 'L', 'K' or 'x' while reading one
    std::string m_meta;
    std::string m_long_name;  // from the headers before the next member
    std::string m_long_link;
    std::string m_pax_path;
    std::string m_pax_link;
    bool m_pax_has_size = false;
    uint64_t m_pax_size = 0;
    int m_zero_blocks = 0;
    bool m_started = false;  // a member began and its content has not all come
};

}  // namespace kftrain::staging
