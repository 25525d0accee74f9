#include "core/send/send_tree.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <set>

#include "core/links/host_intake.h"
#include "planner/algorithms.h"
#include "planner/broadcast/broadcast_choice.h"
#include "planner/striped/striped_plan.h"

namespace hnow::daemon {

namespace {

using planner::BroadcastAlgorithm;
using planner::BroadcastPlan;
using planner::TransferMode;

}  // namespace

// Site labels only when the agents span two or more sites (seed 001's LCF
// is then the store-and-forward candidate). The source sits in the site
// its node names (hnowd in the room it shares with agents), else alone in
// its own, as it is the one node every first copy crosses from. Each
// agents' room is behind a trunk (planner/site_links.h); one not measured
// is taken at the fastest port in the room: a room's switch reaches the
// rest of the building by one port of its class, which every plan crossing
// the trunk more than once per stripe would share.
planner::SiteLinks siteLinksOf(const std::vector<TreeNode>& nodes, bool measuredOnly) {
  std::set<std::string> agentSites;
  for (std::size_t i = 1; i < nodes.size(); ++i) agentSites.insert(nodes[i].site);
  if (agentSites.size() < 2) return {};
  // No agent can carry the label "\x01hnowd".
  std::vector<std::string> labels{nodes[0].site.empty() ? std::string("\x01hnowd") : nodes[0].site};
  for (std::size_t i = 1; i < nodes.size(); ++i) labels.push_back(nodes[i].site);
  planner::SiteLinks sites;
  sites.siteOf = planner::siteIndices(labels);
  for (std::size_t i = 1; i < nodes.size(); ++i) {
    const auto site = static_cast<std::size_t>(sites.siteOf[i]);
    if (sites.trunks.size() <= site) sites.trunks.resize(site + 1);
    const double port =
        measuredOnly ? 0.0 : std::max(nodes[i].rates.uplinkBytesPerSecond, nodes[i].rates.downlinkBytesPerSecond);
    planner::Trunk& trunk = sites.trunks[site];
    trunk.inBytesPerSecond = std::max(trunk.inBytesPerSecond, port);
    trunk.outBytesPerSecond = std::max(trunk.outBytesPerSecond, port);
  }
  // What is known of a room's trunk, from any of its nodes (a manifest's
  // nodes[0] is an agent too).
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    const auto site = static_cast<std::size_t>(sites.siteOf[i]);
    if (sites.trunks.size() <= site) sites.trunks.resize(site + 1);
    planner::Trunk& trunk = sites.trunks[site];
    if (nodes[i].roomTrunk.inBytesPerSecond > 0.0) trunk.inBytesPerSecond = nodes[i].roomTrunk.inBytesPerSecond;
    if (nodes[i].roomTrunk.outBytesPerSecond > 0.0) trunk.outBytesPerSecond = nodes[i].roomTrunk.outBytesPerSecond;
  }
  return sites;
}

bool setRoomTrunk(std::vector<TreeNode>& nodes, const std::string& room, const planner::Trunk& trunk) {
  bool inRoom = false;
  for (std::size_t i = 1; i < nodes.size(); ++i)
    if (nodes[i].site == room) {
      nodes[i].roomTrunk = trunk;
      inRoom = true;
    }
  return inRoom;
}

namespace {

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

// Stripes in whole chunks of the plan's size (the data plane's halved at
// most down to kStripeMinChunkBytes), relayed in that size.
SendTree stripedOf(const planner::StripedPlan& plan, std::uint64_t size) {
  const auto chunkBytes = static_cast<std::uint32_t>(plan.chunkBytes);
  SendTree tree;
  tree.algo = "striped";
  for (const planner::BroadcastTree& t : plan.trees) {
    std::vector<int> parent = t.parent;
    parent[0] = -1;
    tree.stripeParents.push_back(std::move(parent));
  }
  for (long long chunk : plan.firstChunk)
    tree.stripeOffsets.push_back(std::min<std::uint64_t>(size, static_cast<std::uint64_t>(chunk) * chunkBytes));
  tree.stripeChunkBytes = chunkBytes;
  tree.parent = tree.stripeParents.front();
  tree.finish = plan.finishSeconds;
  tree.predictedSeconds = plan.predictedSeconds;
  tree.boundSeconds = plan.boundSeconds;
  return tree;
}

std::vector<int> agentsOf(const planner::BroadcastRequest& request) {
  std::vector<int> destinations;
  for (int i = 1; i < static_cast<int>(request.rates.size()); ++i) destinations.push_back(i);
  return destinations;
}

// Each node's own links: the source as given, a node that may not relay
// with no uplink.
std::vector<planner::NodeRates> ownRates(const std::vector<TreeNode>& nodes) {
  std::vector<planner::NodeRates> rates;
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    rates.push_back(nodes[i].rates);
    if (i > 0 && !nodes[i].relays) rates.back().uplinkBytesPerSecond = 0.0;
  }
  return rates;
}

// The largest over cuts of measured trunks (one taken at its room's
// fastest port is an assumption, not a limit anything measured), over the
// nodes' own links: a fair share of a machine is what plans expect, not a
// limit on any one node.
double linksBoundOf(const planner::BroadcastRequest& request, const std::vector<TreeNode>& nodes) {
  return planner::kumarRossBound(ownRates(nodes), 0, agentsOf(request), request.fileBytes, false,
                                 siteLinksOf(nodes, true));
}

// The bound a send reports: its links' and its machines' intakes.
void setBounds(SendTree& tree, const planner::BroadcastRequest& request, const std::vector<TreeNode>& nodes) {
  tree.boundSeconds = std::max(linksBoundOf(request, nodes), hostIntakeBound(nodes, request.fileBytes));
}

// The chunk halved from the data plane's while it stays at or above both
// kStripeMinChunkBytes and what the fastest link carries in 1/kMaxChunksPerSecond.
double stripeChunkFloor(const planner::BroadcastRequest& request) {
  double fastest = 0.0;
  for (const planner::NodeRates& r : request.rates)
    fastest = std::max({fastest, r.uplinkBytesPerSecond, r.downlinkBytesPerSecond});
  const double floor = std::max<double>(kStripeMinChunkBytes, fastest / kMaxChunksPerSecond);
  double chunk = request.chunkBytes;
  while (chunk / 2 >= floor) chunk /= 2;
  return chunk;
}

Result<planner::StripedPlan> stripedPlanOf(const planner::BroadcastRequest& request) {
  planner::StripedOptions options;
  options.minChunkBytes = stripeChunkFloor(request);
  return planner::planStriped(request.rates, 0, agentsOf(request), request.fileBytes, request.chunkBytes, options,
                              request.sites);
}

PlanOption optionOf(const planner::StripedPlan& plan) {
  return {"striped", std::to_string(plan.stripes()) + (plan.stripes() == 1 ? " stripe" : " stripes"),
          plan.predictedSeconds};
}

std::string seconds2(double s) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2f s", s);
  return text;
}

}  // namespace

namespace {

// The agents of `nodes` on each machine whose intake is known, by machine.
// An unlimited downlink is a copy a re-plan knows is done: it takes
// nothing in.
std::map<std::string, std::vector<std::size_t>> onKnownHosts(const std::vector<TreeNode>& nodes) {
  std::map<std::string, std::vector<std::size_t>> onHost;
  for (std::size_t i = 1; i < nodes.size(); ++i)
    if (!nodes[i].host.empty() && nodes[i].hostIntakeBytesPerSecond > 0.0 &&
        std::isfinite(nodes[i].rates.downlinkBytesPerSecond))
      onHost[nodes[i].host].push_back(i);
  return onHost;
}

}  // namespace

std::vector<planner::NodeRates> plannedRates(const std::vector<TreeNode>& nodes) {
  std::vector<planner::NodeRates> rates = ownRates(nodes);
  for (const auto& [host, members] : onKnownHosts(nodes)) {
    std::vector<double> wants;
    // A downlink not known (0) wants all it can get.
    for (std::size_t i : members) {
      const double d = rates[i].downlinkBytesPerSecond;
      wants.push_back(d > 0.0 ? d : std::numeric_limits<double>::infinity());
    }
    const double level = fairShareLevel(wants, nodes[members.front()].hostIntakeBytesPerSecond);
    if (!std::isfinite(level)) continue;
    for (std::size_t i : members)
      if (!(rates[i].downlinkBytesPerSecond > 0.0) || rates[i].downlinkBytesPerSecond > level)
        rates[i].downlinkBytesPerSecond = level;
  }
  return rates;
}

double hostIntakeBound(const std::vector<TreeNode>& nodes, double bytes) {
  double bound = 0.0;
  for (const auto& [host, members] : onKnownHosts(nodes))
    bound = std::max(bound, static_cast<double>(members.size()) * bytes / nodes[members.front()].hostIntakeBytesPerSecond);
  return bound;
}

bool knownSendAlgo(const std::string& algo) { return planner::findAlgorithm(planner::kSendUse, algo) != nullptr; }

Result<SendTree> planSendTree(const std::string& algo, const std::vector<TreeNode>& nodes, std::uint64_t size,
                              std::uint32_t chunkBytes, bool weighStriped) {
  planner::BroadcastRequest request;
  request.rates = plannedRates(nodes);
  request.source = 0;
  request.fileBytes = static_cast<double>(size);
  request.chunkBytes = chunkBytes;
  request.sites = siteLinksOf(nodes);
  // hnowd answers `hnow send` within a second.
  request.limits.maxSearchNodes = 2'000'000;

  if (algo == "striped") {
    auto striped = stripedPlanOf(request);
    if (!striped) return striped.error();
    SendTree tree = stripedOf(*striped, size);
    tree.considered = {optionOf(*striped)};
    setBounds(tree, request, nodes);
    tree.fluidBoundSeconds = planner::fluidLowerBound(request.rates, 0, {}, request.fileBytes, request.tree);
    return tree;
  }
  if (algo == "auto" || algo == "tree") {
    if (algo == "tree") weighStriped = false;
    auto choice = planner::chooseBroadcastPlan(request);
    if (!choice) return choice.error();
    SendTree tree = treeOf(choice->chosen);
    tree.considered = {optionOf(choice->storeAndForward), optionOf(choice->pipelined)};
    tree.fluidBoundSeconds = choice->fluidLowerBound;
    tree.why = "one tree: " + seconds2(tree.predictedSeconds) + " predicted";
    setBounds(tree, request, nodes);
    if (!weighStriped) return tree;
    auto striped = stripedPlanOf(request);
    if (!striped) return tree;  // one tree still stands
    tree.considered.push_back(optionOf(*striped));
    const double oneTree = tree.predictedSeconds;
    if (striped->stripes() >= 2 && striped->predictedSeconds <= oneTree * (1 - kStripedGain)) {
      const double bound = tree.boundSeconds, fluid = tree.fluidBoundSeconds;
      auto considered = std::move(tree.considered);
      tree = stripedOf(*striped, size);
      tree.considered = std::move(considered);
      tree.fluidBoundSeconds = fluid;
      tree.boundSeconds = bound;
      tree.why = "striped: " + seconds2(tree.predictedSeconds) + " predicted in " +
                 std::to_string(striped->stripes()) + " stripes against " + seconds2(oneTree) + " for one tree";
    } else {
      tree.why += ", striped " + seconds2(striped->predictedSeconds) +
                  (striped->stripes() < 2 ? " (one stripe: the same tree)"
                                           : " (not " + std::to_string(static_cast<int>(kStripedGain * 100)) +
                                                 "% faster)");
    }
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
  setBounds(tree, request, nodes);
  tree.fluidBoundSeconds = planner::fluidLowerBound(request.rates, 0, {}, request.fileBytes, request.tree);
  return tree;
}

}  // namespace hnow::daemon
