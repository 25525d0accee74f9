#pragma once
// What a directory tree's send says beyond a file's (docs/tree-send.md):
// hnowd packs the tree into one bundle, which moves along the plan as a
// file does; each agent unpacks it and reports what it published.
#include <cstdint>
#include <string>
#include <vector>

namespace hnow::daemon {

// A path of the tree (relative to its top, printable) and what went wrong with it.
struct PathProblem {
  std::string path;
  std::string why;
};

// Lists of problems carry at most this many; the rest are only counted
// (a tree of 20,000 unreadable files must not make a 20,000-line report).
inline constexpr std::size_t kMaxPathProblems = 100;

// One agent's unpack of the bundle.
struct TreeOutcome {
  std::uint64_t files = 0;     // published
  std::uint64_t bytes = 0;
  std::uint64_t replaced = 0;  // of them, files that took another file's place
  std::uint64_t failedCount = 0;
  std::vector<PathProblem> failed;  // at most kMaxPathProblems
  std::uint64_t held = 0;     // files kept as they were: the agent held them already
  std::uint64_t deleted = 0;  // entries removed (--delete)
  std::uint64_t copied = 0;   // files the agent held under another path of the tree, copied from there (not sent)
};

// The tree as hnowd packed it.
struct TreeSummary {
  std::uint64_t entries = 0;  // directories, files and symlinks
  std::uint64_t files = 0;
  std::uint64_t fileBytes = 0;
  bool atomic = false;
  std::uint64_t refusedCount = 0;    // left out at hnowd
  std::vector<PathProblem> refused;  // at most kMaxPathProblems
  std::uint64_t sentFiles = 0;       // files whose bytes the bundle carries: some agent lacked them
  std::uint64_t sentBytes = 0;
  bool deleteOthers = false;
  std::uint64_t queryBytes = 0;      // the indexes hnowd sent to ask what agents hold, all agents summed
};

// A tree whose agents lack different files goes as a bundle per group of
// them (bundle_groups.h), each its own broadcast: one group's.
struct BundleGroupStatus {
  std::vector<std::string> agents;
  std::uint64_t sentFiles = 0;  // files its bundle carries, and their bytes
  std::uint64_t sentBytes = 0;
  std::uint64_t size = 0;       // the bundle as it moved (compressed or not)
  std::string algo;
  double predictedS = 0.0;
  double elapsedS = 0.0;
  bool finished = false;
  std::string error{};  // it could not start: why (its agents' copies failed)
};

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
