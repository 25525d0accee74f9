#include "api/picture_layout.h"

#include <cstddef>

namespace hnow::api {

TreeLayout layOutTree(const std::vector<int>& parent, int root) {
  const std::size_t n = parent.size();
  TreeLayout out{std::vector<double>(n, -1.0), std::vector<int>(n, -1), 0, 0};
  if (root < 0 || static_cast<std::size_t>(root) >= n) return out;
  std::vector<std::vector<int>> children(n);
  for (std::size_t i = 0; i < n; ++i)
    if (static_cast<int>(i) != root && parent[i] >= 0 && static_cast<std::size_t>(parent[i]) < n)
      children[static_cast<std::size_t>(parent[i])].push_back(static_cast<int>(i));
  // Depth first without recursion (a chain of hundreds of agents is a deep
  // tree); each node is entered once, so a circle is never closed.
  struct Frame {
    int node;
    std::size_t next;
  };
  std::vector<Frame> stack{{root, 0}};
  out.depth[static_cast<std::size_t>(root)] = 0;
  while (!stack.empty()) {
    Frame& top = stack.back();
    const auto node = static_cast<std::size_t>(top.node);
    if (top.next < children[node].size()) {
      const int child = children[node][top.next++];
      if (out.depth[static_cast<std::size_t>(child)] >= 0) continue;
      out.depth[static_cast<std::size_t>(child)] = out.depth[node] + 1;
      stack.push_back({child, 0});
      continue;
    }
    // All its children placed: a leaf takes the next slot, a parent the middle of its children's.
    double first = -1.0, last = -1.0;
    for (const int c : children[node]) {
      const double s = out.slot[static_cast<std::size_t>(c)];
      if (s < 0) continue;
      if (first < 0) first = s;
      last = s;
    }
    out.slot[node] = first < 0 ? static_cast<double>(out.slots++) : (first + last) / 2.0;
    if (out.depth[node] + 1 > out.depths) out.depths = out.depth[node] + 1;
    stack.pop_back();
  }
  return out;
}

}  // namespace hnow::api
