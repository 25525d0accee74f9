#pragma once
// A client's memory of its tree's digests between runs (docs/tree-send.md,
// "From the client's machine"): `hnow send DIR` from a laptop scans and
// hashes DIR at every send, seconds per GiB before anything moves. The
// digests of its files are kept in a file of the client's and trusted
// while a file's device, inode, size, mtime and ctime stay the same, as
// hnowd's memory of its own walks (TreeDigestCache) and git's index do.
#include <string>

#include "base/result.h"
#include "transport/data/tree_bundle.h"

namespace hnow::transport::data {

// The digests kept in `file` (none when it is missing or not one of these).
TreeDigestCache loadTreeDigests(const std::string& file);

// The digests of `scan`'s files (keyed as scanTree keys them under `dir`)
// written to `file` (a temp file renamed over it; its directory made):
// only this scan's, so a file gone from the tree is forgotten. A file
// changed within the last second is left out: a write in the same tick of
// its timestamps could not be told from the bytes hashed.
Result<void> saveTreeDigests(const std::string& file, const std::string& dir, const ScannedTree& scan);

}  // namespace hnow::transport::data
