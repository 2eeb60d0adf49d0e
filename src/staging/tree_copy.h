#pragma once

#include <cstdint>
#include <ostream>
#include <set>
#include <string>
#include <vector>

#include "staging/listing.h"
#include "staging/member_plan.h"
#include "staging/tar_reader.h"
#include "staging/tree_writer.h"
#include "util/fd/unique_fd.h"
#include "util/result.h"

namespace kftrain::staging {

// What a copy wrote and what it left out.
struct CopyReport {
    size_t files = 0;
    uint64_t bytes = 0;
    std::vector<std::string> skipped;  // "path: why", as the warnings said
};

// Writes each member it is given through a TreeWriter as plan_member says, warning on warn
// about each member it leaves out (a device, a FIFO, a symlink out of a claim, a path that
// leaves the copy). The one way kftrain lays down files it did not make: the cluster's tar
// stream on `data get`, and the local trees of `data put` and `data get --local`.
class TreeSink : public TarSink {
  public:
    TreeSink(TreeWriter& writer, bool keep_symlinks, std::ostream& warn)
        : m_writer(writer), m_keep_symlinks(keep_symlinks), m_warn(warn) {}

    util::Status begin(const TarEntry& entry) override;
    util::Status content(const char* data, size_t size) override;
    util::Status end() override;

    const CopyReport& report() const { return m_report; }

  private:
    TreeWriter& m_writer;
    bool m_keep_symlinks;
    std::ostream& m_warn;
    CopyReport m_report;
    MemberPlan m_plan;
    int64_t m_modified = 0;
    bool m_writing = false;
    std::set<std::string> m_written;  // files this copy wrote: what a hard link may copy
};

// The line a copy ends with: "get: 3 files, 1.5 KiB from claim c:/p to out" and, when it left
// members out, how many.
std::string copied_line(const std::string& verb, const CopyReport& report, const std::string& from,
                        const std::string& to);

// Read the tree under dir as members for sink, each directory's entries in name order, never
// following a symlink inside it (a symlink is a member of its own); stops with exit 130 when a
// caught signal arrives.
util::Status read_tree(const std::string& dir, TarSink& sink);
// Read the tree under dir, an open directory named shown in messages, as above.
util::Status read_tree(util::UniqueFd dir, const std::string& shown, TarSink& sink);

// A claim's directory on this machine, open: what put writes beneath and get reads from, so
// that a link swapped in along its path after the walk cannot lead either out of the claim.
struct ClaimDir {
    std::string path;  // for messages and the overlap checks
    util::UniqueFd fd;
};

// Open the directory claim_path names under root, refusing (exit 2) a path whose parts
// include a symlink, so that a link inside a claim cannot lead put, get or ls out of it; exit
// 3 when it does not exist (unless create, which makes it).
util::Result<ClaimDir> claim_directory(const std::string& root, const std::string& claim_path,
                                       const std::string& claim, bool create);

// Return the files of listing that already exist in out_dir (as anything), and its directories
// that exist there as something else than a directory: what a copy would replace.
std::vector<std::string> existing_paths(const Listing& listing, const std::string& out_dir);

// The error for a copy that would replace what is in out_dir, naming the first few.
util::Error would_replace(const std::vector<std::string>& paths, const std::string& out_dir);

}  // namespace kftrain::staging
