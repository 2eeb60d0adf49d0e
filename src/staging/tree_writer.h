#pragma once

#include <cstdint>
#include <string>

#include "util/fd/unique_fd.h"
#include "util/result.h"

namespace kftrain::staging {

// Writes files and directories beneath one directory and never outside it: every path is
// walked part by part from that directory without following a symlink (util::open_dir_beneath),
// and its last part made with openat(O_NOFOLLOW) in the directory the walk opened, so a link
// already there, or one made by a race, cannot lead a write elsewhere.
// Nothing is chowned; modes are permission bits only, under the process's umask.
class TreeWriter {
  public:
    // Write beneath root, an existing directory (the user's own: a symlink to one is followed).
    // replace_files: an existing file or symlink where a file goes is replaced (never written
    // through); otherwise it is an error naming it.
    static util::Result<TreeWriter> open(const std::string& root, bool replace_files);
    // Write beneath root_fd, an open directory named root in messages: one a walk reached
    // without following a link (claim_directory), so that nothing swapped in along its path
    // since then is followed either.
    static TreeWriter beneath(util::UniqueFd root_fd, std::string root, bool replace_files);
    TreeWriter(TreeWriter&& other) noexcept = default;
    TreeWriter& operator=(TreeWriter&&) = delete;
    TreeWriter(const TreeWriter&) = delete;
    // A file still being written (the copy failed or was stopped) is removed.
    ~TreeWriter();

    // Make the directory (and missing parents); an existing directory keeps its mode.
    util::Status make_directory(const std::string& path, uint32_t mode);
    // Start a file: its content comes through write(), then end_file(). It is written under a
    // name of its own (.NAME.kftrain-partial) and takes its name only once whole.
    util::Status begin_file(const std::string& path, uint32_t mode);
    util::Status write(const char* data, size_t size);
    // Close the file, setting its modification time (seconds since the epoch), and name it.
    util::Status end_file(int64_t modified);
    // Write a copy of from (a file written earlier beneath root) at path.
    util::Status copy_file(const std::string& from, const std::string& path, uint32_t mode);
    // Make a symlink at path to target (target is not checked: a link is never followed here).
    util::Status make_symlink(const std::string& path, const std::string& target);

  private:
    TreeWriter(std::string root, util::UniqueFd root_fd, bool replace_files)
        : m_root(std::move(root)), m_root_fd(std::move(root_fd)), m_replace(replace_files) {}
    util::Result<util::UniqueFd> open_parent(const std::string& path, std::string& leaf);
    util::Status clear_for_file(int dir, const std::string& leaf, const std::string& path);
    util::Result<util::UniqueFd> open_room(const std::string& path, std::string& leaf);
    util::Status create_file(const std::string& path, uint32_t mode);
    // Remove the file being written, if any.
    void abandon_file();
    std::string shown(const std::string& path) const;

    std::string m_root;
    util::UniqueFd m_root_fd;
    bool m_replace = false;
    util::UniqueFd m_file;      // the file being written, under its partial name
    util::UniqueFd m_file_dir;  // the directory it is written in
    std::string m_file_leaf;    // its name there
    std::string m_file_path;
};

}  // namespace kftrain::staging
