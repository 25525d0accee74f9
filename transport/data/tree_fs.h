#pragma once
// Directory steps that packTree and unpackTree share (tree_bundle.h). None
// follows a symlink below the directory it starts from: a tree on disk may
// change while it is read or written, and a symlink swapped in must not
// carry a read or a write elsewhere.
#include <cstdint>
#include <ctime>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/result.h"

namespace hnow::transport::data {

// The directories along one path below a top directory, each opened from
// the one above with O_NOFOLLOW (O_PATH: searching it is all that is
// needed), and kept open for the next entry, which an index in
// depth-first order places mostly in the same directory.
class DirWalk {
 public:
  explicit DirWalk(int topFd) : top_(topFd) {}  // borrowed
  ~DirWalk() { closeFrom(0); }
  DirWalk(const DirWalk&) = delete;
  DirWalk& operator=(const DirWalk&) = delete;

  // An fd for `dir` ('/'-separated, below the top; "" is the top itself),
  // owned by the walk and valid until the next call.
  Result<int> open(std::string_view dir);

 private:
  void closeFrom(std::size_t depth);
  int top_;
  std::vector<std::pair<std::string, int>> open_;  // open_[i]: the path of depth i + 1 and its fd
};

// `name` in the directory `parentFd` removed with all it holds, symlinks
// removed as links. Directories it cannot enter or empty (mode 0500, say)
// are made 0700 first: what it removes is hnow's own staging, or a tree
// the caller replaced.
Result<void> removeTree(int parentFd, const std::string& name);

// Sets a directory's mode and mtime (`name` in `parentFd`, never through a symlink).
Result<void> setDirectoryMeta(int parentFd, const std::string& name, std::uint32_t mode, std::int64_t mtimeNs);

// What futimens takes to leave the atime and set the mtime to `mtimeNs`.
struct FileTimes {
  struct timespec times[2];
};
FileTimes mtimeOnly(std::int64_t mtimeNs);

// The last component of `path`, and the directory before it ("" at the top).
std::string_view baseName(std::string_view path);
std::string_view dirName(std::string_view path);

}  // namespace hnow::transport::data
