#pragma once
// `hnow send FILE|DIR` names a path on hnowd's host, which hnowd reads with
// its own permissions: it is confined to hnowd's `[send] roots`
// (conf/runtime_config.h) as `hnow run --input` is to `[run] roots`
// (run_paths.h): an absolute path inside a root, no `..`, no symlinked
// directory on the way, and not itself a symlink. A path outside is not
// read: `ClientSession.sees` answers that hnowd does not see it, so the
// client uploads what it can read itself, and a send naming it is refused.
//
// The check opens what it checked and hnowd reads it only through that
// descriptor, never by its path again: an operator who swaps a directory
// on the way for a symlink (to a directory only root reads) after the
// check changes nothing hnowd reads, since the descriptor still names the
// file or directory that was checked.
#include <string>
#include <vector>

#include "base/result.h"
#include "core/send/send_service.h"

namespace hnow::daemon {

// The file or directory at `path`, opened as checked (walked down from its
// root with O_NOFOLLOW, itself opened with O_NOFOLLOW) and held open; its
// readPath names that descriptor (/proc/self/fd/N), which the kernel
// resolves to exactly what was opened whatever the path holds meanwhile.
// Or the refusal when hnowd may not read `path` for a send.
Result<SourcePin> pinSendSource(const std::vector<std::string>& roots, const std::string& path);

// What a refusal adds: how to fix it.
inline constexpr const char* kSendRootsHint =
    " (hnowd reads what it sends only inside its [send] roots, with no '..' and no symlink on the way: add the "
    "directory to [send] roots in hnowd.toml; `hnow send` uploads what hnowd does not read)";

}  // namespace hnow::daemon
