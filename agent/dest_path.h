#pragma once
// Where a received file may go (DESIGN.md "Integrity and security
// defaults"): a relative destination is under the agent's data root (its
// first configured root), an absolute one must lie inside a root. `..` is
// refused outright; every directory on the way is opened with O_NOFOLLOW
// relative to the one before, so a symlink cannot lead outside the root
// even if it appears while we walk. Missing directories are created.
#include <string>
#include <vector>

#include "base/result.h"
#include "transport/data/data_plane.h"

namespace hnow::agent {

// The opened directory and a fresh temp file beside the destination, or
// the reason the destination is refused.
Result<transport::data::ReceiveTarget> openDestination(const std::vector<std::string>& roots,
                                                       const std::string& dest);

// A directory tree's destination (docs/tree-send.md): its bundle arrives
// in a temp file beside `dest` (named as a receive's, so a crash leaves
// only what the startup sweep removes) and is unpacked as `dest` once
// whole. `dest` may exist as a directory, not as anything else.
struct TreeDestination {
  transport::data::ReceiveTarget bundle;  // for the data plane; its final name is a temp name too
  int parentFd = -1;                      // dest's directory, owned by the caller
  std::string name;                       // dest's last component
  std::string parentPath;                 // absolute
};
Result<TreeDestination> openTreeDestination(const std::vector<std::string>& roots, const std::string& dest);

}  // namespace hnow::agent
