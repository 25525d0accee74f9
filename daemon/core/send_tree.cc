#include "core/send_tree.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include "planner/broadcast.h"
#include "planner/broadcast_search.h"
#include "planner/two_level.h"
#include "planner/two_level_lcf.h"

namespace hnow::daemon {

namespace {

constexpr double kUnlimited = 1e12;  // bytes/s for a rate nobody measured

double rateOr(double r) { return r > 0 ? r : kUnlimited; }

std::vector<int> parentsOf(const planner::Schedule& schedule, std::size_t n) {
  std::vector<int> parent(n, 0);
  parent[0] = -1;
  for (const auto& t : schedule) parent[static_cast<std::size_t>(t.to)] = t.from;
  return parent;
}

// seed 000 §2: t(p) = S(p) + m / uplink(p), the whole file as one message.
std::vector<double> sendTimes(const std::vector<TreeNode>& nodes, std::uint64_t size) {
  std::vector<double> t;
  for (const auto& n : nodes)
    t.push_back(n.rates.sendOverheadSeconds + static_cast<double>(size) / rateOr(n.rates.uplinkBytesPerSecond));
  return t;
}

// seed 001: sites as clusters, hnowd alone in cluster 0. Local time from the
// median uplink; the cross-site cost C is not measured yet and taken as 2x.
std::vector<int> lcfParents(const std::vector<TreeNode>& nodes, std::uint64_t size) {
  std::map<std::string, std::vector<int>> bySite;
  for (std::size_t i = 1; i < nodes.size(); ++i) bySite[nodes[i].site].push_back(static_cast<int>(i));
  std::vector<int> sizes{1}, order{0};  // two-level index -> node index
  for (auto& [site, members] : bySite) {
    sizes.push_back(static_cast<int>(members.size()));
    order.insert(order.end(), members.begin(), members.end());
  }
  std::vector<double> uplinks;
  for (std::size_t i = 1; i < nodes.size(); ++i) uplinks.push_back(rateOr(nodes[i].rates.uplinkBytesPerSecond));
  std::nth_element(uplinks.begin(), uplinks.begin() + static_cast<std::ptrdiff_t>(uplinks.size() / 2), uplinks.end());
  const double local = static_cast<double>(size) / uplinks[uplinks.size() / 2];
  auto schedule = planner::largestClusterFirst(planner::broadcastInstance(sizes, local, 2 * local));
  std::vector<int> parent(nodes.size(), 0);
  parent[0] = -1;
  for (const auto& t : schedule) parent[static_cast<std::size_t>(order[t.to])] = order[t.from];
  return parent;
}

std::vector<int> treeFor(const std::string& algo, const std::vector<TreeNode>& nodes, std::uint64_t size) {
  const auto t = sendTimes(nodes, size);
  if (algo == "fnf") return parentsOf(planner::fastestNodeFirst(t, 0), nodes.size());
  if (algo == "binomial") return parentsOf(planner::binomialBroadcast(t, 0), nodes.size());
  if (algo == "chain") return parentsOf(planner::chainBroadcast(t, 0), nodes.size());
  if (algo == "flat") return parentsOf(planner::flatBroadcast(t, 0), nodes.size());
  if (algo == "lcf") return lcfParents(nodes, size);
  if (algo == "optimal") {
    planner::SearchLimits limits;
    limits.maxSearchNodes = 2'000'000;  // hnowd answers within a second
    return parentsOf(planner::optimalBroadcast(t, 0, limits).schedule, nodes.size());
  }
  return {};
}

}  // namespace

bool knownSendAlgo(const std::string& algo) {
  for (const char* a : {"auto", "fnf", "optimal", "lcf", "binomial", "chain", "flat"})
    if (algo == a) return true;
  return false;
}

std::vector<double> predictPipelined(const std::vector<int>& parent, const std::vector<TreeNode>& nodes,
                                     std::uint64_t size, std::uint32_t chunkBytes) {
  const std::size_t n = nodes.size();
  std::vector<int> children(n, 0);
  for (std::size_t v = 1; v < n; ++v) ++children[static_cast<std::size_t>(parent[v])];
  std::vector<double> rate(n, -1), latency(n, 0), finish(n, 0);
  rate[0] = std::numeric_limits<double>::infinity();
  // Parents first: resolve in an order where each parent is already done.
  for (std::size_t done = 1, guard = 0; done < n && guard < n * n; ++guard)
    for (std::size_t v = 1; v < n; ++v) {
      const auto p = static_cast<std::size_t>(parent[v]);
      if (rate[v] >= 0 || rate[p] < 0) continue;
      const double share = rateOr(nodes[p].rates.uplinkBytesPerSecond) / children[p];
      rate[v] = std::min({rate[p], share, rateOr(nodes[v].rates.downlinkBytesPerSecond)});
      const double chunk = static_cast<double>(std::min<std::uint64_t>(chunkBytes, size));
      latency[v] = latency[p] + chunk / std::min(share, rateOr(nodes[v].rates.downlinkBytesPerSecond));
      finish[v] = latency[v] + static_cast<double>(size) / rate[v];
      ++done;
    }
  return finish;
}

SendTree planSendTree(const std::string& algo, const std::vector<TreeNode>& nodes, std::uint64_t size,
                      std::uint32_t chunkBytes) {
  std::vector<std::string> candidates{algo};
  if (algo == "auto") {
    candidates = {"fnf", "binomial", "chain", "flat"};
    std::map<std::string, int> sites;
    for (std::size_t i = 1; i < nodes.size(); ++i) ++sites[nodes[i].site];
    if (sites.size() > 1) candidates.push_back("lcf");
  }
  SendTree best;
  best.predictedSeconds = std::numeric_limits<double>::infinity();
  for (const auto& candidate : candidates) {
    SendTree tree;
    tree.algo = candidate;
    tree.parent = treeFor(candidate, nodes, size);
    if (tree.parent.size() != nodes.size()) continue;
    tree.finish = predictPipelined(tree.parent, nodes, size, chunkBytes);
    tree.predictedSeconds = *std::max_element(tree.finish.begin(), tree.finish.end());
    if (tree.predictedSeconds < best.predictedSeconds) best = std::move(tree);
  }
  return best;
}

}  // namespace hnow::daemon
