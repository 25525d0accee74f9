#pragma once
// unpackTree's publish without `atomic` (tree_bundle.h), apart from the
// staging it reads: each entry takes its place under the destination on
// its own, and what is in the way of one entry fails that entry (and what
// lies under it) only.
#include <cstdint>
#include <vector>

#include "transport/data/tree_bundle.h"

namespace hnow::transport::data {

// Moves the files and symlinks of `entries`, written in the staging
// directory `stageFd`, to the same paths under `destFd`, creating the
// directories that are missing there; then sets the directories' modes and
// mtimes, deepest first. A held entry (kHeldOffset, nothing staged) is
// checked again where it is and kept (holdingOf, keepHeldFile), or fails
// with kHeldChanged; a staged file whose path already holds a regular file
// of its size and mtime is kept too (its mode set), counted held. Without
// `deleteOthers`, nothing already under `destFd` that the tree does not
// name is touched; with it, that is removed (pruneUnnamed) before the
// directories' mtimes are set. No symlink there is followed.
UnpackedTree publishInPlace(const std::vector<TreeEntry>& entries, int stageFd, int destFd, bool deleteOthers);

// What lies under the directory `treeFd` (its own entries, never itself)
// at a path `entries` does not name: removed with all it holds (`remove`)
// or only counted. Directories the index names are entered, without
// following symlinks; hnow's temp names (isHnowTempName) are skipped at
// any depth. Returns how many were (or would be) removed, counting a
// removed directory once; what cannot be listed or removed goes into
// `failed`.
std::uint64_t pruneUnnamed(int treeFd, const std::vector<TreeEntry>& entries, bool remove,
                           std::vector<TreeProblem>& failed);

}  // namespace hnow::transport::data
