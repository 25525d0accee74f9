#include "planner/clusters/two_level.h"

namespace hnow::planner {

TwoLevelInstance broadcastInstance(std::vector<int> sizes, double localTime, double globalTime,
                                   TwoLevelModel model) {
  TwoLevelInstance instance;
  instance.needed = sizes;
  instance.sizes = std::move(sizes);
  instance.localTime = localTime;
  instance.globalTime = globalTime;
  instance.model = model;
  return instance;
}

ClusterLayout::ClusterLayout(std::span<const int> sizes) : sizes_(sizes.begin(), sizes.end()) {
  first_.push_back(0);
  for (int c = 0; c < static_cast<int>(sizes_.size()); ++c) {
    first_.push_back(first_.back() + sizes_[c]);
    clusterOf_.insert(clusterOf_.end(), sizes_[c], c);
  }
}

std::vector<int> targetNodes(const TwoLevelInstance& instance) {
  ClusterLayout layout(instance.sizes);
  std::vector<int> targets{0};
  for (int c = 0; c < layout.clusters(); ++c)
    for (int j = 0; j < instance.needed[c]; ++j)
      if (layout.firstNode(c) + j != 0) targets.push_back(layout.firstNode(c) + j);
  return targets;
}

int globalTransferCount(const ClusterLayout& layout, std::span<const Transfer> schedule) {
  int count = 0;
  for (const Transfer& x : schedule)
    if (layout.clusterOf(x.from) != layout.clusterOf(x.to)) ++count;
  return count;
}

}  // namespace hnow::planner
