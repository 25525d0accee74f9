#include "planner/clusters/two_level_degree.h"

#include <algorithm>
#include <queue>

#include "planner/clusters/two_level_lcf.h"

namespace hnow::planner {

TwoLevelInstance degreeReducedInstance(const TwoLevelInstance& instance,
                                       std::span<const int> degree) {
  TwoLevelInstance reduced = instance;
  for (size_t c = 0; c < instance.sizes.size(); ++c) {
    const int n = instance.sizes[c], members = instance.needed[c];
    const int d = c < degree.size() && degree[c] > 0 ? degree[c] : n;
    // §5.2: n_i <- d_i if n'_i < d_i, else n_i <- n'_i; then keep min(d_i, n_i).
    const int adjusted = members < d ? std::min(n, d) : std::min(n, members);
    reduced.sizes[c] = std::min(d, adjusted);
    reduced.needed[c] = std::min(members, reduced.sizes[c]);
  }
  return reduced;
}

Schedule completeLocally(const TwoLevelInstance& instance, Schedule schedule) {
  const ClusterLayout layout(instance.sizes);
  std::vector<double> readyAt(layout.nodes(), -1.0);  // < 0: does not hold the message
  readyAt[0] = 0.0;
  for (const Transfer& x : schedule) {
    readyAt[x.from] = std::max(readyAt[x.from], x.end);
    readyAt[x.to] = std::max(readyAt[x.to], x.end);
  }
  using Slot = std::pair<double, int>;  // (free from, node): earliest first, then lower index
  for (int c = 0; c < layout.clusters(); ++c) {
    std::priority_queue<Slot, std::vector<Slot>, std::greater<>> free;
    std::vector<int> waiting;
    for (int j = 0; j < layout.size(c); ++j) {
      const int v = layout.firstNode(c) + j;
      if (readyAt[v] >= 0) {
        free.push({readyAt[v], v});
      } else if (j < instance.needed[c]) {
        waiting.push_back(v);
      }
    }
    for (int to : waiting) {
      if (free.empty()) break;  // no copy reached this cluster: the validator says so
      auto [at, from] = free.top();
      free.pop();
      const double end = at + instance.localTime;
      schedule.push_back({from, to, at, end});
      free.push({end, from});
      free.push({end, to});
    }
  }
  std::stable_sort(schedule.begin(), schedule.end(),
                   [](const Transfer& a, const Transfer& b) { return a.start < b.start; });
  return schedule;
}

Schedule boundedDegreeLcf(const TwoLevelInstance& instance, std::span<const int> degree,
                          bool multicast) {
  const TwoLevelInstance reduced = degreeReducedInstance(instance, degree);
  const Schedule phase1 = multicast ? lcfMulticast(reduced) : largestClusterFirst(reduced);
  // Reduced node j of cluster c is node j of cluster c in the full instance.
  const ClusterLayout small(reduced.sizes), full(instance.sizes);
  auto lift = [&](int v) { return full.firstNode(small.clusterOf(v)) + small.positionOf(v); };
  Schedule lifted;
  for (const Transfer& x : phase1) lifted.push_back({lift(x.from), lift(x.to), x.start, x.end});
  return completeLocally(instance, std::move(lifted));
}

}  // namespace hnow::planner
