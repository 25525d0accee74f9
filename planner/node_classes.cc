#include "planner/node_classes.h"

#include <algorithm>
#include <map>

namespace hnow::planner {

NodeClasses classesOf(std::span<const double> sendTime, int excluded) {
  std::map<double, std::vector<int>> byTime;
  for (int v = 0; v < static_cast<int>(sendTime.size()); ++v)
    if (v != excluded) byTime[sendTime[v]].push_back(v);
  NodeClasses out;
  out.classOf.assign(sendTime.size(), -1);
  for (auto& [t, nodes] : byTime) {
    for (int v : nodes) out.classOf[v] = static_cast<int>(out.sendTime.size());
    out.sendTime.push_back(t);
    out.members.push_back(std::move(nodes));
  }
  return out;
}

}  // namespace hnow::planner
