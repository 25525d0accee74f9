#pragma once
// unpackTree's publish without `atomic` (tree_bundle.h), apart from the
// staging it reads: each entry takes its place under the destination on
// its own, and what is in the way of one entry fails that entry (and what
// lies under it) only.
#include <vector>

#include "transport/data/tree_bundle.h"

namespace hnow::transport::data {

// Moves the files and symlinks of `entries`, written in the staging
// directory `stageFd`, to the same paths under `destFd`, creating the
// directories that are missing there; then sets the directories' modes and
// mtimes, deepest first. Nothing already under `destFd` that the tree does
// not name is touched, and no symlink there is followed.
UnpackedTree publishInPlace(const std::vector<TreeEntry>& entries, int stageFd, int destFd);

}  // namespace hnow::transport::data
