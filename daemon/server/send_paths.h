#pragma once
// `hnow send FILE|DIR` names a path on hnowd's host, which hnowd reads with
// its own permissions: it is confined to hnowd's `[send] roots`
// (conf/runtime_config.h) as `hnow run --input` is to `[run] roots`
// (run_paths.h): an absolute path inside a root, no `..`, no symlinked
// directory on the way, and not itself a symlink. A path outside is not
// read: `ClientSession.sees` answers that hnowd does not see it, so the
// client uploads what it can read itself, and a send naming it is refused.
#include <string>
#include <vector>

#include "base/result.h"

namespace hnow::daemon {

// Whether hnowd may read `path` (a file or a directory) for a send; the refusal when not.
Result<void> checkSendSource(const std::vector<std::string>& roots, const std::string& path);

// What a refusal adds: how to fix it.
inline constexpr const char* kSendRootsHint =
    " (hnowd reads what it sends only inside its [send] roots, with no '..' and no symlink on the way: add the "
    "directory to [send] roots in hnowd.toml; `hnow send` uploads what hnowd does not read)";

}  // namespace hnow::daemon
