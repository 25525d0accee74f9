#include "core/manifest/manifest_plan.h"

#include <algorithm>
#include <limits>
#include <map>

#include "planner/algorithms.h"
#include "planner/pipelined/concurrent_pipelines.h"
#include "planner/multicast/multicast_bound.h"
#include "planner/multicast/multicast_heuristics.h"
#include "planner/multicast/multicast_rates.h"
#include "planner/pipelined/pipelined_tree.h"
#include "planner/pipelined/trunk_crossings.h"

namespace hnow::daemon {

namespace {


constexpr const char* kTogether = "pipelined, together";

struct Candidate {
  std::string algo;
  std::vector<planner::BroadcastTree> trees;
  planner::ConcurrentPrediction prediction;
};

// Each item planned alone by the send planner, over its own nodes.
struct AloneTrees {
  std::vector<planner::BroadcastTree> trees;
  double sequentialSeconds = 0.0;
};

Result<AloneTrees> plannedAlone(const std::vector<TreeNode>& nodes, const std::vector<ManifestItemNodes>& items,
                        std::uint32_t chunkBytes) {
  AloneTrees out;
  const int n = static_cast<int>(nodes.size());
  for (const ManifestItemNodes& item : items) {
    std::vector<TreeNode> local{nodes[item.source]};
    for (int d : item.destinations) local.push_back(nodes[d]);
    auto planned = planSendTree("auto", local, item.size, chunkBytes);
    if (!planned) return planned.error();
    const SendTree& alone = *planned;
    out.sequentialSeconds += alone.predictedSeconds;
    planner::BroadcastTree tree;
    tree.source = item.source;
    tree.parent.assign(n, -1);
    tree.children.assign(n, {});
    for (std::size_t i = 1; i < local.size(); ++i) {
      const int p = alone.parent[i] == 0 ? item.source : item.destinations[alone.parent[i] - 1];
      tree.parent[item.destinations[i - 1]] = p;
      tree.children[p].push_back(item.destinations[i - 1]);
    }
    out.trees.push_back(std::move(tree));
  }
  return out;
}

// Seed 004's heuristics plan store-and-forward: a relay waits for the whole
// item, so they favour wide, shallow trees, and with the manifest's items run
// pipelined a sender's children share its uplink. This candidate plans for
// pipelining: the items, largest first, each along its max-bottleneck tree
// (the pipelined tree, pipelined_tree.h) over the capacity the items
// before it left: every edge of an earlier item's tree at its bottleneck rate
// b takes b from its sender's uplink and its receiver's downlink. Only an
// item's destinations relay it. Empty when some item cannot be planned so.
std::vector<planner::BroadcastTree> residualTrees(std::vector<planner::NodeRates> left,
                                                  const std::vector<ManifestItemNodes>& items) {
  std::vector<std::size_t> order(items.size());
  for (std::size_t k = 0; k < order.size(); ++k) order[k] = k;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return items[a].size > items[b].size; });
  const std::vector<planner::NodeRates> full = left;
  std::vector<planner::BroadcastTree> trees(items.size());
  for (std::size_t k : order) {
    auto tree = planner::maxBottleneckTree(left, items[k].source, items[k].destinations, {false});
    if (!tree) return {};
    const double b = planner::bottleneckRate(*tree, left);
    for (int v = 0; v < tree->nodeCount(); ++v) {
      const int p = tree->parent[v];
      if (p < 0) continue;
      // A little capacity stays, so later items can still be planned (and are predicted slow).
      left[p].uplinkBytesPerSecond = std::max(left[p].uplinkBytesPerSecond - b, 1e-3 * full[p].uplinkBytesPerSecond);
      left[v].downlinkBytesPerSecond =
          std::max(left[v].downlinkBytesPerSecond - b, 1e-3 * full[v].downlinkBytesPerSecond);
    }
    trees[k] = std::move(*tree);
  }
  return trees;
}

}  // namespace

bool knownManifestAlgo(const std::string& algo) {
  return planner::findAlgorithm(planner::kManifestUse, algo) != nullptr;
}

// The items run together along `trees`, each pipelined (seed 004's trees
// included: the data plane pipelines every tree).
static planner::ConcurrentPrediction predictTogether(std::vector<planner::BroadcastTree> trees,
                                                     const std::vector<ManifestItemNodes>& items,
                                                     const std::vector<planner::NodeRates>& rates,
                                                     std::uint32_t chunkBytes, const planner::SiteLinks& sites) {
  std::vector<planner::PipelinedItem> run;
  for (std::size_t k = 0; k < items.size(); ++k) run.push_back({std::move(trees[k]), static_cast<double>(items[k].size)});
  auto predicted = planner::predictConcurrentPipelines(run, rates, chunkBytes, sites);
  if (!predicted) {  // cannot happen for trees built here; keep the candidate out
    planner::ConcurrentPrediction never;
    never.seconds = std::numeric_limits<double>::infinity();
    return never;
  }
  return *predicted;
}

Result<ManifestPlan> planManifest(const std::string& algo, const std::vector<TreeNode>& nodes,
                                  const std::vector<ManifestItemNodes>& items, std::uint32_t chunkBytes) {
  ManifestPlan plan;
  if (!knownManifestAlgo(algo)) return Error{"unknown algo " + algo};
  if (items.empty()) return Error{"the manifest has no items"};
  std::vector<planner::NodeRates> rates;
  for (const TreeNode& node : nodes) rates.push_back(node.rates);
  std::vector<planner::MulticastMessage> messages;
  for (const ManifestItemNodes& item : items)
    messages.push_back({item.source, static_cast<double>(item.size), item.destinations});

  auto planned = plannedAlone(nodes, items, chunkBytes);
  if (!planned) return planned.error();
  const AloneTrees& alone = *planned;
  plan.sequentialSeconds = alone.sequentialSeconds;

  // A node that may not relay (TreeNode::relays) is a leaf in every item it
  // does not source, whatever a candidate made of it: seed 004's model and
  // the residual trees take rates, not that rule (the independent trees keep
  // it already, planSendTree). Predicted as they will run.
  std::vector<bool> relays;
  for (const TreeNode& node : nodes) relays.push_back(node.relays);
  // Rooms: every tree crosses slow trunks as few times as its time allows,
  // and the items are predicted together with the trunks they share.
  const planner::SiteLinks sites = siteLinksOf(nodes);
  auto candidate = [&](std::string name, std::vector<planner::BroadcastTree> trees) {
    for (std::size_t k = 0; k < trees.size(); ++k)
      trees[k] = planner::fewerTrunkCrossings(planner::hangOffNonRelays(trees[k], relays), rates,
                                              static_cast<double>(items[k].size), chunkBytes, sites);
    planner::ConcurrentPrediction prediction = predictTogether(trees, items, rates, chunkBytes, sites);
    return Candidate{std::move(name), std::move(trees), std::move(prediction)};
  };

  std::vector<Candidate> candidates;
  auto instance = planner::multicastFromRates(rates, messages);
  if (!instance) return instance.error();
  plan.lowerBoundSeconds = planner::multicastLowerBound(*instance);
  // Seed 004's heuristics, in the table's order (planner/algorithms.h).
  for (const planner::Algorithm& h : planner::algorithms()) {
    if (!h.multicast || !(h.uses & planner::kManifestUse) || (algo != "auto" && algo != h.name)) continue;
    const std::string name(h.name);
    auto planned = planner::planMulticast(*instance, *h.multicast, {h.preemptive, 1});
    if (!planned) return Error{name + ": " + planned.error().message};
    Candidate c = candidate(name, planner::treesOfMulticastPlan(*instance, *planned));
    plan.considered.push_back({name, "store-and-forward", planned->makespan});
    plan.considered.push_back({name, kTogether, c.prediction.seconds});
    candidates.push_back(std::move(c));
  }
  if (algo == "auto" || algo == "independent") {
    Candidate c = candidate("independent", alone.trees);
    plan.considered.push_back({"independent", kTogether, c.prediction.seconds});
    candidates.push_back(std::move(c));
  }
  if (algo == "auto" || algo == "residual") {
    auto trees = residualTrees(rates, items);
    if (!trees.empty()) {
      Candidate c = candidate("residual", std::move(trees));
      plan.considered.push_back({"residual", kTogether, c.prediction.seconds});
      candidates.push_back(std::move(c));
    } else if (algo == "residual") {
      return Error{"an item has no max-bottleneck tree over its destinations"};
    }
  }
  // The least predicted time; ties keep the earlier candidate (the seed's order).
  const Candidate* best = &candidates.front();
  for (const Candidate& c : candidates)
    if (c.prediction.seconds < best->prediction.seconds) best = &c;

  plan.algo = best->algo;
  plan.predictedSeconds = best->prediction.seconds;
  for (std::size_t k = 0; k < items.size(); ++k)
    plan.items.push_back({best->trees[k].parent, best->prediction.finishSeconds[k]});
  return plan;
}

SendTree itemSendTree(const ManifestPlan& plan, const ManifestItemNodes& item, std::size_t index) {
  const ItemTree& tree = plan.items[index];
  std::map<int, int> local{{item.source, 0}};
  for (std::size_t i = 0; i < item.destinations.size(); ++i) local[item.destinations[i]] = static_cast<int>(i) + 1;
  SendTree out;
  out.algo = plan.algo;
  out.parent.assign(item.destinations.size() + 1, -1);
  out.finish.assign(item.destinations.size() + 1, 0.0);
  for (std::size_t i = 0; i < item.destinations.size(); ++i) {
    const int node = item.destinations[i];
    out.parent[i + 1] = local.at(tree.parent[node]);
    out.finish[i + 1] = tree.finish[node];
    out.predictedSeconds = std::max(out.predictedSeconds, tree.finish[node]);
  }
  return out;
}

}  // namespace hnow::daemon
