#pragma once
// What a directory tree's send reports beyond a file's (docs/tree-send.md):
// what hnowd packed, what each agent published, and the bundle per group of
// agents. hnowd fills them in, the CLI prints them.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace hnow::api {

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
// them (core/send/bundle_groups.h), each its own broadcast: one group's.
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

}  // namespace hnow::api
