#include "core/send_tree.h"

#include <set>

#include "planner/broadcast/broadcast_choice.h"

namespace hnow::daemon {

namespace {

using planner::BroadcastAlgorithm;
using planner::BroadcastPlan;
using planner::TransferMode;

// Site labels only when the agents span two or more sites (seed 001's LCF
// is then the store-and-forward candidate); hnowd sits alone in its own
// site, as it is the one node every first copy crosses from.
planner::SiteLinks sitesOf(const std::vector<TreeNode>& nodes) {
  std::set<std::string> agentSites;
  for (std::size_t i = 1; i < nodes.size(); ++i) agentSites.insert(nodes[i].site);
  if (agentSites.size() < 2) return {};
  std::vector<std::string> labels{"\x01hnowd"};  // no agent can carry this label
  for (std::size_t i = 1; i < nodes.size(); ++i) labels.push_back(nodes[i].site);
  planner::SiteLinks sites;
  sites.siteOf = planner::siteIndices(labels);
  return sites;
}

PlanOption optionOf(const BroadcastPlan& plan) {
  return {planner::broadcastAlgorithmName(plan.algorithm), planner::transferModeName(plan.mode),
          plan.predictedSeconds()};
}

// The data plane pipelines every tree: predict it so.
SendTree treeOf(const BroadcastPlan& plan) {
  SendTree tree;
  tree.algo = planner::broadcastAlgorithmName(plan.algorithm);
  tree.parent = plan.tree.parent;
  tree.parent[0] = -1;
  tree.finish = plan.pipelined.finishSeconds;
  tree.predictedSeconds = plan.pipelined.seconds;
  return tree;
}

}  // namespace

bool knownSendAlgo(const std::string& algo) {
  for (const char* a : {"auto", "fnf", "optimal", "lcf", "binomial", "chain", "flat"})
    if (algo == a) return true;
  return false;
}

Result<SendTree> planSendTree(const std::string& algo, const std::vector<TreeNode>& nodes, std::uint64_t size,
                              std::uint32_t chunkBytes) {
  planner::BroadcastRequest request;
  for (const TreeNode& n : nodes) request.rates.push_back(n.rates);
  request.source = 0;
  request.fileBytes = static_cast<double>(size);
  request.chunkBytes = chunkBytes;
  request.sites = sitesOf(nodes);
  // hnowd answers `hnow send` within a second.
  request.limits.maxSearchNodes = 2'000'000;

  if (algo == "auto") {
    auto choice = planner::chooseBroadcastPlan(request);
    if (!choice) return choice.error();
    SendTree tree = treeOf(choice->chosen);
    tree.considered = {optionOf(choice->storeAndForward), optionOf(choice->pipelined)};
    tree.fluidBoundSeconds = choice->fluidLowerBound;
    return tree;
  }
  auto algorithm = planner::broadcastAlgorithmFromName(algo);
  if (!algorithm || *algorithm == BroadcastAlgorithm::kMaxBottleneck) return Error{"unknown algo " + algo};
  auto plan = planner::planBroadcast(request, *algorithm, TransferMode::kPipelined);
  if (!plan) return plan.error();
  SendTree tree = treeOf(*plan);
  BroadcastPlan storeAndForward = *plan;
  storeAndForward.mode = TransferMode::kStoreAndForward;
  tree.considered = {optionOf(storeAndForward), optionOf(*plan)};
  tree.fluidBoundSeconds = planner::fluidLowerBound(request.rates, 0, {}, request.fileBytes, request.tree);
  return tree;
}

}  // namespace hnow::daemon
