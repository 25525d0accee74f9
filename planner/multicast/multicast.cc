#include "planner/multicast/multicast.h"

#include <cmath>

namespace hnow::planner {

std::vector<double> uniformLinks(int nodeCount, double secondsPerByte) {
  return std::vector<double>(static_cast<size_t>(nodeCount) * nodeCount, secondsPerByte);
}

Result<void> checkInstance(const MulticastInstance& instance) {
  const int n = instance.nodeCount();
  auto finiteAtLeast = [](double x, double low) { return std::isfinite(x) && x >= low; };
  for (int v = 0; v < n; ++v) {
    const MulticastNode& node = instance.nodes[v];
    if (!finiteAtLeast(node.sendOverhead, 0) || node.sendOverhead == 0 ||
        !finiteAtLeast(node.recvOverhead, 0) || node.recvOverhead == 0)
      return Error{"node " + std::to_string(v) + ": send and receive overheads must be greater than 0"};
    if (!finiteAtLeast(node.sendPerByte, 0) || !finiteAtLeast(node.recvPerByte, 0))
      return Error{"node " + std::to_string(v) + ": per-byte costs must be 0 or more"};
  }
  if (instance.linkPerByte.size() != static_cast<size_t>(n) * n)
    return Error{"the link table must have one entry per ordered pair of nodes"};
  for (double x : instance.linkPerByte)
    if (!finiteAtLeast(x, 0)) return Error{"link times per byte must be 0 or more"};
  // listed[d] == k + 1: d is already a destination of message k (one
  // allocation for all messages; the planners call this on every plan).
  std::vector<int> listed(n, 0);
  for (int k = 0; k < instance.messageCount(); ++k) {
    const MulticastMessage& m = instance.messages[k];
    auto which = [k] { return "message " + std::to_string(k); };
    if (m.source < 0 || m.source >= n) return Error{which() + ": source index out of range"};
    if (!finiteAtLeast(m.bytes, 0)) return Error{which() + ": size must be 0 or more bytes"};
    for (int d : m.destinations) {
      if (d < 0 || d >= n) return Error{which() + ": destination index out of range"};
      if (d == m.source) return Error{which() + ": the source cannot be one of its destinations"};
      if (listed[d] == k + 1) return Error{which() + ": destination " + std::to_string(d) + " listed twice"};
      listed[d] = k + 1;
    }
  }
  return {};
}

Schedule asTransfers(const MulticastPlan& plan) {
  Schedule out;
  out.reserve(plan.transfers.size());
  for (const MulticastTransfer& x : plan.transfers)
    out.push_back({x.from, x.to, x.sendStart, x.recvEnd});
  return out;
}

}  // namespace hnow::planner
