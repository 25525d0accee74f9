#pragma once
// A broadcast as a tree over node ids: who relays the file to whom, and in
// which order a node serves its children. Both transfer modes run on it: store
// and forward (seeds 000, 001: relay after full receipt, one child at a time)
// and pipelined (chunks relayed as they arrive, children served concurrently).
#include <span>
#include <string>
#include <vector>

#include "base/result.h"
#include "planner/transfer.h"

namespace hnow::planner {

struct BroadcastTree {
  int source = 0;
  std::vector<int> parent;                 // per node; -1 for the source and nodes left out
  std::vector<std::vector<int>> children;  // per node, in sending order

  int nodeCount() const { return static_cast<int>(parent.size()); }
  bool contains(int node) const { return node == source || parent[node] >= 0; }
  // Edges from the source to the deepest node (0 for a lone source).
  int depth() const;
  // Nodes in the tree, parents before children (breadth first).
  std::vector<int> topDown() const;
};

// The tree of a parent relation (-1 = source or left out), children in index
// order. Rejects a relation that is not a tree rooted at `source`.
Result<BroadcastTree> treeFromParents(int source, std::vector<int> parent);

// The tree a store-and-forward schedule builds: each node's parent is the
// node that sent to it, children in the order the schedule serves them. This
// lets the data plane run any --algo's schedule as a pipelined tree.
Result<BroadcastTree> treeFromSchedule(std::span<const Transfer> schedule, int source, int nodeCount);

// `tree` with the children of every node that may not relay (`mayRelay[v]`
// false, or v past its end) hung on that node's nearest ancestor that may
// (the source always may), after that ancestor's own children. Algorithms
// that place nodes by position (binomial, chain, LCF) would otherwise give a
// node with no uplink, or one hnowd keeps from relaying, children to feed.
BroadcastTree hangOffNonRelays(const BroadcastTree& tree, const std::vector<bool>& mayRelay);

// Which nodes must end with the file: `destinations` deduplicated, ascending,
// without the source; every node but the source when empty.
Result<std::vector<int>> destinationSet(int nodeCount, int source, std::span<const int> destinations);

// Checks a tree against a request: rooted at `source`, acyclic, parent and
// children agree, every destination in it; else the first problem found.
Result<void> checkTree(const BroadcastTree& tree, int source, std::span<const int> destinations);

}  // namespace hnow::planner
