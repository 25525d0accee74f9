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

}  // namespace hnow::agent
