#include "planner/pipelined/trunk_crossings.h"

#include <algorithm>
#include <tuple>
#include <vector>

#include "planner/pipelined/pipelined_tree.h"

namespace hnow::planner {

namespace {

// Candidates tried per node and per count of crossings: the parents with
// the most uplink to spare. Enough to find the relay a room offers without
// predicting every pairing on a lab of hundreds.
constexpr int kParentsPerLevel = 3;

bool inSubtree(const BroadcastTree& tree, int node, int root) {
  for (int v = node; v >= 0; v = tree.parent[v])
    if (v == root) return true;
  return false;
}

BroadcastTree moved(const BroadcastTree& tree, int node, int to) {
  BroadcastTree out = tree;
  std::vector<int>& siblings = out.children[out.parent[node]];
  siblings.erase(std::find(siblings.begin(), siblings.end(), node));
  out.parent[node] = to;
  out.children[to].push_back(node);
  return out;
}

}  // namespace

int trunkCrossings(const BroadcastTree& tree, const SiteLinks& sites) {
  int count = 0;
  for (int v = 0; v < tree.nodeCount(); ++v)
    if (v != tree.source && tree.parent[v] >= 0) count += sites.limitedCrossings(tree.parent[v], v);
  return count;
}

BroadcastTree fewerTrunkCrossings(const BroadcastTree& tree, std::span<const NodeRates> rates, double fileBytes,
                                  double chunkBytes, const SiteLinks& sites, double slack) {
  if (!sites.hasTrunkLimits()) return tree;
  auto start = predictPipelined(tree, rates, fileBytes, chunkBytes, sites);
  if (!start) return tree;
  const double ceiling = start.value().seconds * (1.0 + slack);
  const int n = tree.nodeCount();
  BroadcastTree best = tree;
  // Every move lowers the sum of crossings, so the passes end.
  for (bool improved = true; improved;) {
    improved = false;
    for (int c : best.topDown()) {
      if (c == best.source) continue;
      const int crossings = sites.limitedCrossings(best.parent[c], c);
      if (crossings == 0) continue;
      // (crossings, -spare uplink, node): fewest crossings, then most spare.
      std::vector<std::tuple<int, double, int>> parents;
      for (int q = 0; q < n; ++q) {
        if (q == best.parent[c] || !best.contains(q) || !(rates[q].uplinkBytesPerSecond > 0.0)) continue;
        const int k = sites.limitedCrossings(q, c);
        if (k >= crossings || inSubtree(best, q, c)) continue;
        const double spare = rates[q].uplinkBytesPerSecond / static_cast<double>(best.children[q].size() + 1);
        parents.emplace_back(k, -spare, q);
      }
      std::sort(parents.begin(), parents.end());
      std::tuple<int, double> bestScore{crossings, 0.0};
      int bestParent = -1;
      int tried = 0, level = -1;
      for (const auto& [k, negSpare, q] : parents) {
        if (k != level) level = k, tried = 0;
        if (tried++ >= kParentsPerLevel) continue;
        auto p = predictPipelined(moved(best, c, q), rates, fileBytes, chunkBytes, sites);
        if (!p || p.value().seconds > ceiling) continue;
        const std::tuple<int, double> score{k, p.value().seconds};
        if (bestParent < 0 || score < bestScore) bestScore = score, bestParent = q;
      }
      if (bestParent < 0) continue;
      best = moved(best, c, bestParent);
      improved = true;
    }
  }
  return best;
}

}  // namespace hnow::planner
