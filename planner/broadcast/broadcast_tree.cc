#include "planner/broadcast/broadcast_tree.h"

#include <algorithm>
#include <string>

namespace hnow::planner {

int BroadcastTree::depth() const {
  std::vector<int> level(parent.size(), 0);
  int deepest = 0;
  for (int v : topDown()) {
    if (v != source) level[v] = level[parent[v]] + 1;
    deepest = std::max(deepest, level[v]);
  }
  return deepest;
}

std::vector<int> BroadcastTree::topDown() const {
  std::vector<int> order;
  if (source < 0 || source >= nodeCount()) return order;
  order.push_back(source);
  for (size_t i = 0; i < order.size(); ++i)
    for (int c : children[order[i]]) order.push_back(c);
  return order;
}

Result<BroadcastTree> treeFromParents(int source, std::vector<int> parent) {
  const int n = static_cast<int>(parent.size());
  if (source < 0 || source >= n) return Result<BroadcastTree>::failure("source out of range");
  if (parent[source] != -1) return Result<BroadcastTree>::failure("the source has a parent");
  BroadcastTree tree;
  tree.source = source;
  tree.children.assign(n, {});
  for (int v = 0; v < n; ++v) {
    if (parent[v] < -1 || parent[v] >= n || parent[v] == v)
      return Result<BroadcastTree>::failure("node " + std::to_string(v) + " has an invalid parent");
    if (parent[v] >= 0) tree.children[parent[v]].push_back(v);
  }
  tree.parent = std::move(parent);
  // Every node with a parent must hang below the source (no cycles, no
  // parent that is itself left out).
  int reached = static_cast<int>(tree.topDown().size());
  int members = 1;
  for (int v = 0; v < n; ++v) members += tree.parent[v] >= 0;
  if (reached != members) return Result<BroadcastTree>::failure("the parent relation is not a tree at the source");
  return tree;
}

Result<BroadcastTree> treeFromSchedule(std::span<const Transfer> schedule, int source, int nodeCount) {
  if (source < 0 || source >= nodeCount) return Result<BroadcastTree>::failure("source out of range");
  std::vector<const Transfer*> first(nodeCount, nullptr);
  for (const Transfer& x : schedule) {
    if (x.from < 0 || x.from >= nodeCount || x.to < 0 || x.to >= nodeCount)
      return Result<BroadcastTree>::failure("a transfer names a node out of range");
    if (x.to == source) continue;
    if (!first[x.to] || x.start < first[x.to]->start) first[x.to] = &x;
  }
  std::vector<int> parent(nodeCount, -1);
  for (int v = 0; v < nodeCount; ++v)
    if (first[v]) parent[v] = first[v]->from;
  auto tree = treeFromParents(source, parent);
  if (!tree) return tree;
  // Sending order: by the start of the send in the schedule.
  for (auto& kids : tree.value().children)
    std::stable_sort(kids.begin(), kids.end(), [&](int a, int b) { return first[a]->start < first[b]->start; });
  return tree;
}

BroadcastTree hangOffNonRelays(const BroadcastTree& tree, const std::vector<bool>& mayRelay) {
  const int n = tree.nodeCount();
  auto relays = [&](int v) { return v == tree.source || (v < static_cast<int>(mayRelay.size()) && mayRelay[v]); };
  BroadcastTree out;
  out.source = tree.source;
  out.parent = tree.parent;
  out.children.assign(n, {});
  // Breadth first: a node's new parent is settled before it, and the
  // children it takes over come after its own, which are one level up.
  std::vector<int> server(n, -1);  // the node itself if it relays, else its nearest ancestor that does
  for (int v : tree.topDown()) {
    if (v == tree.source) {
      server[v] = v;
      continue;
    }
    const int p = server[tree.parent[v]];
    out.parent[v] = p;
    out.children[p].push_back(v);
    server[v] = relays(v) ? v : p;
  }
  return out;
}

Result<std::vector<int>> destinationSet(int nodeCount, int source, std::span<const int> destinations) {
  using Result = Result<std::vector<int>>;
  if (source < 0 || source >= nodeCount) return Result::failure("source out of range");
  std::vector<int> out;
  if (destinations.empty()) {
    for (int v = 0; v < nodeCount; ++v)
      if (v != source) out.push_back(v);
    return out;
  }
  for (int v : destinations) {
    if (v < 0 || v >= nodeCount) return Result::failure("destination " + std::to_string(v) + " out of range");
    if (v != source) out.push_back(v);
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

Result<void> checkTree(const BroadcastTree& tree, int source, std::span<const int> destinations) {
  const int n = tree.nodeCount();
  if (tree.source != source) return Error{"the tree is rooted at " + std::to_string(tree.source)};
  if (source < 0 || source >= n || static_cast<int>(tree.children.size()) != n) return Error{"malformed tree"};
  if (tree.parent[source] != -1) return Error{"the source has a parent"};
  int members = 1;
  for (int v = 0; v < n; ++v) {
    if (tree.parent[v] < -1 || tree.parent[v] >= n) return Error{"node " + std::to_string(v) + " has an invalid parent"};
    if (tree.parent[v] >= 0) {
      ++members;
      const auto& kids = tree.children[tree.parent[v]];
      if (std::count(kids.begin(), kids.end(), v) != 1)
        return Error{"node " + std::to_string(v) + " is not listed once among its parent's children"};
    }
    for (int c : tree.children[v])
      if (c < 0 || c >= n || tree.parent[c] != v) return Error{"children of " + std::to_string(v) + " disagree with parents"};
  }
  if (static_cast<int>(tree.topDown().size()) != members) return Error{"not a tree at the source (cycle)"};
  for (int d : destinations)
    if (d < 0 || d >= n || !tree.contains(d)) return Error{"destination " + std::to_string(d) + " is not reached"};
  return {};
}

}  // namespace hnow::planner
