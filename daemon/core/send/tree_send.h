#pragma once
// What a directory tree's send says beyond a file's (docs/tree-send.md):
// hnowd packs the tree into one bundle, which moves along the plan as a
// file does; each agent unpacks it and reports what it published.
#include <cstdint>
#include <string>
#include <vector>

#include "api/tree_status.h"

namespace hnow::daemon {

// The report's parts of a tree's send (api/tree_status.h), in core's words.
using api::BundleGroupStatus;
using api::kMaxPathProblems;
using api::PathProblem;
using api::TreeOutcome;
using api::TreeSummary;

// Questions to an agent about a tree's files (only what changed), in parts
// that each fit one message: `parts[i]` is an index (compressed) of the
// directories its files lie in, then the files; `ordinals[i][j]` is the
// scan entry of its j-th entry (-1 for a directory).
struct TreeQueries {
  std::vector<std::string> parts;
  std::vector<std::vector<std::int64_t>> ordinals;
};

// A tree as hnowd's walk found it, before any bundle: what the agents are
// asked about first (`queries` and `ordinals` as in TreeQueries: every
// file by size and mtime, no digests). The plane keeps the scan itself
// until dropScan(id).
struct TreeScan {
  std::uint64_t id = 0;
  std::size_t entries = 0;
  TreeSummary summary;
  std::vector<std::string> queries;
  std::vector<std::vector<std::int64_t>> ordinals;
  std::vector<std::uint64_t> sizes{};  // per scan entry: a file's bytes (0 for a directory or symlink)
};

// A packed tree on hnowd's disk, sent as the file at `path`, removed when the send ends.
struct TreeBundle {
  std::string path;
  std::uint64_t size = 0;
  TreeSummary summary;
};

}  // namespace hnow::daemon
