#pragma once
// Questions about a tree's files (tree_bundle.h, "Only what changed"): what
// a receiver holds of them, asked in parts that each fit one message. hnowd
// asks its agents; a client asks hnowd about the copy of its directory
// hnowd kept from the last upload.
#include <cstdint>
#include <string>
#include <vector>

#include "transport/data/tree_bundle.h"

namespace hnow::transport::data {

// `parts[i]` is a query index (queryIndexOf: compressed) of the directories
// its files lie in, then the files; `ordinals[i][j]` is the scan entry of
// its j-th entry (-1 for a directory).
struct QueryParts {
  std::vector<std::string> parts;
  std::vector<std::vector<std::int64_t>> ordinals;
};

// The files `files` (scan entries, in order) of `scan` in parts, each with
// the directories its files lie in, their digests listed when `withSha256`.
QueryParts queryParts(const ScannedTree& scan, const std::vector<std::size_t>& files, bool withSha256);

}  // namespace hnow::transport::data
