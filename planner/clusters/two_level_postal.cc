#include "planner/clusters/two_level_postal.h"

#include <algorithm>
#include <queue>
#include <tuple>

namespace hnow::planner {

Schedule interleavedLcf(const TwoLevelInstance& instance) {
  const ClusterLayout layout(instance.sizes);
  const double local = instance.localTime, global = instance.globalTime;
  std::vector<int> order;  // clusters other than K0, largest first
  for (int c = 1; c < layout.clusters(); ++c) order.push_back(c);
  std::stable_sort(order.begin(), order.end(),
                   [&](int a, int b) { return instance.sizes[a] > instance.sizes[b]; });
  size_t nextCluster = 0;
  std::vector<int> nextFresh(layout.clusters(), 0);  // positions below were sent to
  if (layout.clusters() > 0) nextFresh[0] = 1;

  // (free at, node, next step is global): a node sends from the moment it
  // holds the message; equal times go in index order.
  using Slot = std::tuple<double, int, bool>;
  std::priority_queue<Slot, std::vector<Slot>, std::greater<>> free;
  if (layout.nodes() > 0) free.push({0.0, 0, false});
  Schedule out;
  while (!free.empty()) {
    auto [at, v, globalDue] = free.top();
    free.pop();
    const int c = layout.clusterOf(v);
    const bool localWork = nextFresh[c] < layout.size(c);
    const bool globalWork = nextCluster < order.size();
    if (!localWork && !globalWork) continue;  // nothing left that this node could do
    if (globalWork && (globalDue || !localWork)) {
      const int target = order[nextCluster++];
      nextFresh[target] = 1;
      const int to = layout.firstNode(target);
      out.push_back({v, to, at, at + global});
      free.push({at + global, to, false});
      free.push({at + local, v, false});
    } else {
      const int to = layout.firstNode(c) + nextFresh[c]++;
      out.push_back({v, to, at, at + local});
      free.push({at + local, to, false});
      free.push({at + local, v, true});
    }
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const Transfer& a, const Transfer& b) { return a.start < b.start; });
  return out;
}

}  // namespace hnow::planner
