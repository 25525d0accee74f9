#include "planner/multicast/multicast_bound.h"

#include <algorithm>
#include <limits>

namespace hnow::planner {

std::vector<double> earliestReachTimes(const MulticastInstance& instance) {
  const int n = instance.nodeCount();
  const double infinity = std::numeric_limits<double>::infinity();
  std::vector<double> reach(static_cast<size_t>(instance.messageCount()) * n, infinity);
  for (int k = 0; k < instance.messageCount(); ++k) {
    const MulticastMessage& m = instance.messages[k];
    // Dijkstra over the source and the destinations, dense: O(|D_k|^2).
    std::vector<int> holders{m.source};
    holders.insert(holders.end(), m.destinations.begin(), m.destinations.end());
    std::vector<double> dist(holders.size(), infinity);
    std::vector<char> settled(holders.size(), 0);
    dist[0] = 0.0;
    for (size_t round = 0; round < holders.size(); ++round) {
      int u = -1;
      for (size_t a = 0; a < holders.size(); ++a)
        if (!settled[a] && (u < 0 || dist[a] < dist[u])) u = static_cast<int>(a);
      settled[u] = 1;
      const int from = holders[u];
      for (size_t b = 1; b < holders.size(); ++b) {
        if (settled[b]) continue;
        const int to = holders[b];
        const double via = dist[u] + instance.sendTime(from, k) + instance.wireTime(from, to, k) +
                           instance.recvTime(to, k);
        dist[b] = std::min(dist[b], via);
      }
    }
    for (size_t a = 0; a < holders.size(); ++a) reach[k * n + holders[a]] = dist[a];
  }
  return reach;
}

double multicastLowerBound(const MulticastInstance& instance) {
  const int n = instance.nodeCount();
  std::vector<double> reach = earliestReachTimes(instance);
  std::vector<std::vector<int>> incoming(n);
  for (int k = 0; k < instance.messageCount(); ++k)
    for (int d : instance.messages[k].destinations) incoming[d].push_back(k);
  double bound = 0.0;
  for (int v = 0; v < n; ++v) {
    auto latestStart = [&](int k) { return reach[k * n + v] - instance.recvTime(v, k); };
    std::vector<int>& order = incoming[v];
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return latestStart(a) < latestStart(b); });
    double done = 0.0;  // Equation 4, T_r(v, ·)
    for (int k : order) done = std::max(done + instance.recvTime(v, k), reach[k * n + v]);
    bound = std::max(bound, done);
  }
  return bound;
}

}  // namespace hnow::planner
