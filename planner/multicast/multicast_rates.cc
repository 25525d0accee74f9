#include "planner/multicast/multicast_rates.h"

#include <algorithm>
#include <string>

namespace hnow::planner {

namespace {

constexpr double kLeastOverhead = 1e-6;

}  // namespace

Result<MulticastInstance> multicastFromRates(std::span<const NodeRates> rates,
                                             std::vector<MulticastMessage> messages) {
  using Result = Result<MulticastInstance>;
  const int n = static_cast<int>(rates.size());
  MulticastInstance instance;
  instance.messages = std::move(messages);
  std::vector<bool> sends(n, false), receives(n, false);
  for (const MulticastMessage& m : instance.messages) {
    if (m.source < 0 || m.source >= n) return Result::failure("a message's source is not a node");
    sends[m.source] = true;
    for (int d : m.destinations) {
      if (d < 0 || d >= n) return Result::failure("a message's destination is not a node");
      receives[d] = sends[d] = true;  // a destination may relay
    }
  }
  for (int v = 0; v < n; ++v) {
    if (sends[v] && !(rates[v].uplinkBytesPerSecond > 0))
      return Result::failure("node " + std::to_string(v) + " has no measured uplink");
    if (receives[v] && !(rates[v].downlinkBytesPerSecond > 0))
      return Result::failure("node " + std::to_string(v) + " has no measured downlink");
  }
  instance.nodes.resize(n);
  for (int v = 0; v < n; ++v) {
    MulticastNode& node = instance.nodes[v];
    node.sendOverhead = std::max(rates[v].sendOverheadSeconds, kLeastOverhead);
    node.recvOverhead = std::max(rates[v].receiveOverheadSeconds, kLeastOverhead);
    node.sendPerByte = sends[v] ? 1.0 / rates[v].uplinkBytesPerSecond : 0.0;
    node.recvPerByte = 0.0;
  }
  instance.linkPerByte.assign(static_cast<std::size_t>(n) * n, 0.0);
  for (int i = 0; i < n; ++i) {
    if (!sends[i]) continue;
    for (int j = 0; j < n; ++j) {
      if (i == j || !receives[j]) continue;
      const double up = rates[i].uplinkBytesPerSecond;
      const double slowest = std::min(up, rates[j].downlinkBytesPerSecond);
      instance.linkPerByte[static_cast<std::size_t>(i) * n + j] = std::max(0.0, 1.0 / slowest - 1.0 / up);
    }
  }
  if (auto valid = checkInstance(instance); !valid) return valid.error();
  return instance;
}

std::vector<BroadcastTree> treesOfMulticastPlan(const MulticastInstance& instance, const MulticastPlan& plan) {
  const int n = instance.nodeCount();
  std::vector<BroadcastTree> trees(instance.messages.size());
  for (std::size_t k = 0; k < trees.size(); ++k) {
    trees[k].source = instance.messages[k].source;
    trees[k].parent.assign(n, -1);
    trees[k].children.assign(n, {});
  }
  // Each sender's task list is in execution order: its children in that order.
  for (int v = 0; v < n; ++v)
    for (const MulticastTask& task : plan.taskLists[v]) {
      if (!task.send) continue;
      BroadcastTree& tree = trees[task.message];
      tree.parent[task.peer] = v;
      tree.children[v].push_back(task.peer);
    }
  return trees;
}

}  // namespace hnow::planner
