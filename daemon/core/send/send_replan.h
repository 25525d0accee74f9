#pragma once
// Replanning a send while it runs: from the rates now known, plan a
// new tree over what is not yet delivered and say whether it beats the tree
// in use. Pure: values in, values out; SendOperation applies the answer.
//
// Soundness (docs/replanning.md): the new parent relation is a tree rooted at
// the source over every node that can still serve (receiving and finished
// nodes; failed ones are left out). A finished node does not pull, so its
// edge upward carries nothing: cutting those edges leaves a forest whose
// roots (the source and the finished nodes) hold the whole file. A node that
// receives but may not serve is a leaf of the new tree and of the one kept
// (its children there are predicted under its nearest ancestor that may,
// where they move if the new tree is not adopted). A receiving
// node that pulls from a parent behind it waits, never forever: by induction
// from its root, every parent's byte count keeps growing to the file size.
#include <cstdint>
#include <string>
#include <vector>

#include "core/send/send_tree.h"

namespace hnow::daemon {

struct ReplanNode {
  // kReceivesOnly: still receiving its copy, but it may serve nobody (a relay
  // caught altering bytes): planned as a leaf, with no uplink; the new tree
  // may give it another parent like any receiving node, never a child.
  enum class State { kReceiving, kDone, kFailed, kReceivesOnly };
  State state = State::kReceiving;
  std::uint64_t bytes = 0;  // held, in order (the resume offset)
};

struct ReplanInput {
  std::string algo = "auto";    // the send's --algo; auto also weighs the max-bottleneck tree
  std::vector<TreeNode> nodes;  // [0] the source; the rates known now
  std::vector<int> parent;      // the tree in use, parent[0] = -1
  std::vector<ReplanNode> progress;  // per node; [0] unused
  std::uint64_t size = 0;
  std::uint32_t chunkBytes = 1 << 20;
  // A new tree must save at least this fraction of the remaining time:
  // moving a child drops its in-flight window and costs a reconnection.
  double minGain = 0.1;
};

struct ReplanAnswer {
  bool adopt = false;
  std::vector<int> parent;  // adopt: the new tree over every node, failed ones -1
  // Remaining seconds from now, both trees predicted under the rates known now,
  // for the bytes the slowest receiving node still lacks.
  double keptSeconds = 0.0;
  double replannedSeconds = 0.0;
  std::vector<double> finish;  // adopt: per node, seconds from now
  std::string algo;            // the new tree's algorithm
  std::string why;             // not adopted: the reason, for the log
};

ReplanAnswer replanSend(const ReplanInput& input);

}  // namespace hnow::daemon
