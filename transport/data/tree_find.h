#pragma once
// The same bytes under another path of a tree an agent holds (docs/
// tree-send.md, "Only what changed"): a file renamed or moved inside the
// tree, or a copy under another name, is copied from where it is instead
// of sent. Found by size first (a listing, no read), then by SHA-256, each
// candidate read at most once.
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "transport/data/data_plane.h"

namespace hnow::transport::data {

// What a search under an agent's whole root lists at most (a single file's
// send, a tree's files not in its own tree): enough for a lab's data root,
// and a bound on the walk for a root that holds a whole disk.
inline constexpr std::size_t kMaxFilesSearched = 100000;

class ContentFinder {
 public:
  // Under the directory `topFd` (borrowed, O_PATH will do; -1: finds
  // nothing), walked once, when first asked. Symlinks are not followed,
  // hnow's temp files (isHnowTempName) not counted. The walk stops after
  // listing `maxFiles` files: a whole root of an agent may hold millions,
  // and listing them all would cost more than the send it spares.
  explicit ContentFinder(int topFd, std::size_t maxFiles = SIZE_MAX) : top_(topFd), maxFiles_(maxFiles) {}

  // Whether a regular file of `size` bytes lies anywhere under the tree.
  bool hasSize(std::uint64_t size);
  // The path, below the top, of a regular file of `size` bytes and SHA-256
  // `sha256`; none when no file of that size has it, or it cannot be read.
  std::optional<std::string> find(std::uint64_t size, const Sha256& sha256);

 private:
  void walk();
  void walkDir(int dirFd, const std::string& prefix, int depth);

  int top_;
  std::size_t maxFiles_;
  std::size_t listed_ = 0;
  bool walked_ = false;
  std::unordered_map<std::uint64_t, std::vector<std::string>> bySize_;
  std::map<std::string, std::optional<Sha256>> digests_;  // candidates read (none: unreadable)
};

}  // namespace hnow::transport::data
