#pragma once
// `hnow run --input/--output` name files on hnowd's host, which hnowd reads
// and writes with its own permissions: they are confined to hnowd's `[run]
// roots` (conf/runtime_config.h) by the agents' own confinement
// (base/path_confinement.h, docs/architecture.md "Integrity and security
// defaults"): an absolute path inside a root, no `..`, no symlinked directory
// on the way (each opened with O_NOFOLLOW), and for --input no symlink as the
// file.
#include <string>
#include <vector>

#include "base/path_confinement.h"

namespace hnow::daemon {

// The --input file, opened read-only (caller closes), or the refusal.
Result<int> openRunInput(const std::vector<std::string>& roots, const std::string& input);

// The --output's directory, opened (caller closes `dirFd`), or the refusal.
Result<ConfinedParent> openRunOutputDir(const std::vector<std::string>& roots, const std::string& output);

// What a refusal adds: how to fix it.
inline constexpr const char* kRunRootsHint =
    " (hnowd reads --input and writes --output only inside its [run] roots, with no '..' and no symlinked "
    "directory on the way: add the directory to [run] roots in hnowd.toml, or use a path inside one)";

}  // namespace hnow::daemon
