#pragma once
// What one tree of a send did, kept as it runs for its picture
// (api/send_picture.h): every tree it ran on (the plan, then each replan or
// move, with the rates hnowd held then) and, per copy, each stretch it
// received from one parent: when and with how many bytes it began, and
// when and with how many it ended (held all, or moved away). A copy's
// achieved rate from a parent is that stretch's bytes over its time.
#include <cstdint>
#include <string>
#include <vector>

#include "core/send/send_tree.h"

namespace hnow::daemon {

// A copy's stretch of receiving from one parent; toS < 0 while it lasts.
struct ReceiveStretch {
  int parent = -1;
  double fromS = 0.0;
  std::uint64_t fromBytes = 0;
  double toS = -1.0;
  std::uint64_t toBytes = 0;
  bool open() const { return toS < 0; }
};

// The tree from `atS` on: per node the stretch it received in then
// (index into its stretches; -1 for the source), and the rates planned with.
struct TreeVersion {
  double atS = 0.0;
  std::string reason;
  std::vector<int> stretchOf;
  std::vector<TreeNode> nodes;  // empty: rates not known
};

class SendHistory {
 public:
  // The plan: every agent receives from `parent[i]` from 0 on.
  void start(const std::vector<int>& parent, const std::vector<TreeNode>& nodes);
  // `node` moved to `parent` at `atS` holding `bytes`. Moves at the same
  // moment for the same reason (one replan's) make one version.
  void moved(double atS, int node, int parent, std::uint64_t bytes, const std::string& reason,
             const std::vector<TreeNode>& nodes);
  // `node` holds all its `bytes` at `atS`, or failed or was lost holding
  // them: its stretch ends.
  void ended(double atS, int node, std::uint64_t bytes);

  const std::vector<TreeVersion>& versions() const { return versions_; }
  const ReceiveStretch& stretch(int node, int index) const {
    return stretches_[static_cast<std::size_t>(node)][static_cast<std::size_t>(index)];
  }
  // The parent of `node` in `version`, -1 for the source.
  int parentIn(const TreeVersion& version, int node) const;

 private:
  std::vector<std::vector<ReceiveStretch>> stretches_;  // per node
  std::vector<TreeVersion> versions_;
};

}  // namespace hnow::daemon
