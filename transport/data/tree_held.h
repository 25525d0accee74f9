#pragma once
// What an agent already holds of a tree (tree_bundle.h, "Only what
// changed"): missingFiles asks it before the bundle is packed, unpackTree
// again before it keeps a held file.
#include <cstdint>
#include <string>
#include <string_view>

#include "base/result.h"
#include "transport/data/data_plane.h"
#include "transport/data/tree_bundle.h"

namespace hnow::transport::data {

inline bool isHeldEntry(const TreeEntry& e) {
  return e.kind == TreeEntryKind::kFile && e.size > 0 && e.offset == kHeldOffset;
}

inline constexpr std::string_view kHeldChanged = "changed on this agent since hnowd asked; send again";

enum class Holding {
  kNot,        // missing, not a regular file, another size, or other bytes
  kSame,       // a regular file of the entry's size and mtime
  kSameBytes,  // of its size and SHA-256, with another mtime
  kSameSize,   // of its size, with another mtime, and the entry lists no SHA-256: not held
};
// What the file `name` in `dirFd` (never through a symlink) is to the file entry `e`.
Holding holdingOf(int dirFd, const std::string& name, const TreeEntry& e);

// Keeps the file `name` in `dirFd` as the entry `e` it holds (`how`): its
// mtime set to the entry's (kSameBytes), its mode too when it differs,
// never through a symlink.
Result<void> keepHeldFile(int dirFd, const std::string& name, const TreeEntry& e, Holding how);

// A single file's send (docs/send.md, "A file already there"): what the
// entry `name` in `dirFd` (never through a symlink) is to a file of `size`
// bytes and, given `sha256`, of that digest. Without it, a regular file
// of that size is only kSameSize: hnowd asks again with the digest, so a
// file of another size costs no read.
enum class DestHolding {
  kAbsent,     // nothing there
  kOther,      // another size, other bytes, or not a regular file (a symlink, a fifo): a send replaces it
  kSameSize,   // a regular file of that size; no digest was given
  kSame,       // a regular file of that size and SHA-256: nothing to send
  kDirectory,  // a directory: a file cannot replace it
};
DestHolding destHolding(int dirFd, const std::string& name, std::uint64_t size, const Sha256* sha256);

// The names of hnow's transfers under way that a tree's publish leaves
// alone: staging directories (isTreeStagingName) and receive temp files
// (`.NAME.hnow-<16 hex>.part`).
bool isHnowTempName(const std::string& name);

}  // namespace hnow::transport::data
