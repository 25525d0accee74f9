#pragma once
// Where a received file may go (docs/architecture.md "Integrity and security
// defaults"): a relative destination is under the agent's data root (its first
// configured root), an absolute one must lie inside a root. `..` is refused
// outright; every directory on the way is opened with O_NOFOLLOW relative to
// the one before, so a symlink cannot lead outside the root even if it appears
// while we walk. Missing directories are created.
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

// A compressed file's destination (docs/compression.md): its zstd frame
// arrives in a scratch file beside `dest`, as a tree's bundle does, and is
// expanded into a fresh temp file beside `dest` (openDestination's, made
// now so a refusal comes before a byte moves), renamed into place once it
// matched.
struct CompressedDestination {
  transport::data::ReceiveTarget scratch;  // for the data plane; its final name is a temp name too
  int parentFd = -1;                       // dest's directory, owned by the caller
  int outputFd = -1;                       // the temp file the expansion writes, owned by the caller
  std::string outputName;                  // its name in parentFd
  std::string name;                        // dest's last component
  std::string parentPath;                  // absolute
};
Result<CompressedDestination> openCompressedDestination(const std::vector<std::string>& roots, const std::string& dest);

// The root `dest` lies in, opened to search it for bytes held under another
// path (O_PATH; caller closes); -1 when there is none.
int openSearchRoot(const std::vector<std::string>& roots, const std::string& dest);

// A fresh scratch name beside `name`: `.NAME.hnow-<16 hex>.part`, as a
// receive's temp file, so the startup sweep removes what a crash leaves;
// NAME cut to fit NAME_MAX (a final name of 255 bytes gets one too).
std::string scratchNameFor(const std::string& name);

}  // namespace hnow::agent
