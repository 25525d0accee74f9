#pragma once
// Exhaustive reference for pipelined trees on tiny clusters, written from the
// model's definition and independent of planner/pipelined/pipelined_tree.cc: every
// parent relation over n <= 6 nodes (a node not a destination may be left
// out when relays are allowed), its bottleneck min over edges of
// min(uplink(p) / outdeg(p), downlink(c)), and its depth.
#include <algorithm>
#include <functional>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "base/result.h"
#include "planner/node_rates.h"
#include "support/why.h"

namespace hnow::testing {

struct BruteTree {
  std::vector<int> parent;
  double bottleneck = 0.0;
  int depth = 0;
};

// Calls `visit` for every tree rooted at `source` that contains every
// destination (and, without relays, no other node).
inline void forEachTree(const std::vector<planner::NodeRates>& rates, int source,
                        const std::vector<bool>& isDestination, bool allowRelays,
                        const std::function<void(const BruteTree&)>& visit) {
  const int n = static_cast<int>(rates.size());
  std::vector<int> parent(n, -1);
  std::function<void(int)> assign = [&](int v) {
    if (v == n) {
      BruteTree t;
      t.parent = parent;
      std::vector<int> outdeg(n, 0), level(n, -1);
      level[source] = 0;
      for (int u = 0; u < n; ++u)
        if (parent[u] >= 0) ++outdeg[parent[u]];
      // Depth by walking up; a walk longer than n is a cycle.
      for (int u = 0; u < n; ++u) {
        if (u == source || parent[u] < 0) continue;
        int steps = 0, w = u;
        while (w != source && w >= 0 && steps <= n) {
          w = parent[w];
          ++steps;
        }
        if (w != source) return;  // a cycle, or hangs below a node left out
        level[u] = steps;
      }
      t.bottleneck = std::numeric_limits<double>::infinity();
      for (int u = 0; u < n; ++u) {
        if (parent[u] < 0) continue;
        const int p = parent[u];
        t.bottleneck = std::min(t.bottleneck, std::min(rates[p].uplinkBytesPerSecond / outdeg[p],
                                                       rates[u].downlinkBytesPerSecond));
        t.depth = std::max(t.depth, level[u]);
      }
      if (t.bottleneck == std::numeric_limits<double>::infinity()) t.bottleneck = 0.0;
      visit(t);
      return;
    }
    if (v == source) return assign(v + 1);
    if (!isDestination[v]) {
      parent[v] = -1;
      assign(v + 1);
      if (!allowRelays) return;
    }
    for (int p = 0; p < n; ++p) {
      if (p == v) continue;
      parent[v] = p;
      assign(v + 1);
    }
    parent[v] = -1;
  };
  assign(0);
}

// Rates from a few classes so that ties (equal shares, equal capacities) are
// common, with the odd node that cannot send.
// One node's rates, overheads optional.
inline planner::NodeRates rates(double up, double down, double sendOverhead = 0,
                                double receiveOverhead = 0) {
  planner::NodeRates r;
  r.uplinkBytesPerSecond = up;
  r.downlinkBytesPerSecond = down;
  r.sendOverheadSeconds = sendOverhead;
  r.receiveOverheadSeconds = receiveOverhead;
  return r;
}

inline std::vector<planner::NodeRates> randomRates(std::mt19937& rng, int n) {
  static const double kUplinks[] = {0, 10, 25, 40, 100, 120};
  static const double kDownlinks[] = {10, 30, 50, 100};
  std::uniform_int_distribution<int> up(0, 5), down(0, 3);
  std::uniform_real_distribution<double> overhead(0.0, 0.01);
  std::vector<planner::NodeRates> rates(n);
  for (auto& r : rates) {
    r.uplinkBytesPerSecond = kUplinks[up(rng)];
    r.downlinkBytesPerSecond = kDownlinks[down(rng)];
    r.sendOverheadSeconds = overhead(rng);
    r.receiveOverheadSeconds = overhead(rng);
  }
  return rates;
}

}  // namespace hnow::testing
