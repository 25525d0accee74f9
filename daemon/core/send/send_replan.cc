#include "core/send/send_replan.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "planner/pipelined/pipelined_tree.h"
#include "planner/pipelined/trunk_crossings.h"

namespace hnow::daemon {

namespace {

// A finished node receives nothing: its downlink never limits a tree.
constexpr double kNoLimit = 1e15;

double predicted(const std::vector<int>& parent, const std::vector<planner::NodeRates>& rates, double bytes,
                 double chunk, const planner::SiteLinks& sites) {
  auto tree = planner::treeFromParents(0, parent);
  if (!tree) return std::numeric_limits<double>::infinity();
  auto p = planner::predictPipelined(*tree, rates, bytes, chunk, sites);
  return p ? p->seconds : std::numeric_limits<double>::infinity();
}

// The best tree for what is left. The data plane pipelines every tree: under
// auto the max-bottleneck tree is a candidate even when the store-and-forward
// plan won on its own terms (`tree` is auto among single trees). Every tree
// is predicted with the rooms' trunks, which the max-bottleneck tree does not
// see: it enters each room once where that costs no time, as planned sends do.
Result<SendTree> bestTree(const std::string& algo, const std::vector<TreeNode>& sub,
                          const std::vector<planner::NodeRates>& rates, const planner::SiteLinks& sites,
                          double remaining, std::uint32_t chunkBytes) {
  auto planned = planSendTree(algo, sub, static_cast<std::uint64_t>(remaining), chunkBytes);
  if (algo != "auto" && algo != "tree") return planned;
  SendTree best;
  if (planned) best = *planned;
  else best.predictedSeconds = std::numeric_limits<double>::infinity();
  if (auto mbt = planner::maxBottleneckTree(rates, 0, {})) {
    const planner::BroadcastTree tree = planner::fewerTrunkCrossings(*mbt, rates, remaining, chunkBytes, sites);
    if (auto p = planner::predictPipelined(tree, rates, remaining, chunkBytes, sites);
        p && p->seconds < best.predictedSeconds) {
      best.algo = "pipelined";
      best.parent = tree.parent;
      best.parent[0] = -1;
      best.finish = p->finishSeconds;
      best.predictedSeconds = p->seconds;
    }
  }
  if (!planned && !std::isfinite(best.predictedSeconds)) return planned.error();
  return best;
}

}  // namespace

ReplanAnswer replanSend(const ReplanInput& in) {
  ReplanAnswer answer;
  const std::size_t n = in.nodes.size();
  // The sub-problem: the source and every node that can still serve.
  std::vector<int> full{0}, subOf(n, -1);
  subOf[0] = 0;
  std::uint64_t leastHeld = in.size;
  bool receiving = false;
  for (std::size_t i = 1; i < n; ++i) {
    const ReplanNode& p = in.progress[i];
    if (p.state == ReplanNode::State::kFailed) continue;
    subOf[i] = static_cast<int>(full.size());
    full.push_back(static_cast<int>(i));
    if (p.state == ReplanNode::State::kReceiving || p.state == ReplanNode::State::kReceivesOnly) {
      receiving = true;
      leastHeld = std::min(leastHeld, p.bytes);
    }
  }
  if (!receiving) {
    answer.why = "no node is still receiving";
    return answer;
  }
  // Both trees are predicted for what the slowest receiver still lacks: the
  // same yardstick for both, and an upper bound for the others.
  const double remaining = static_cast<double>(in.size - std::min(leastHeld, in.size));
  if (remaining <= 0) {
    answer.why = "every receiving node holds all bytes";
    return answer;
  }

  auto serves = [&](int v) {
    return v == 0 || (subOf[static_cast<std::size_t>(v)] >= 0 &&
                      in.progress[static_cast<std::size_t>(v)].state != ReplanNode::State::kReceivesOnly &&
                      in.nodes[static_cast<std::size_t>(v)].relays);
  };
  std::vector<TreeNode> sub;
  std::vector<int> kept(full.size(), -1);
  for (std::size_t k = 0; k < full.size(); ++k) {
    const auto i = static_cast<std::size_t>(full[k]);
    TreeNode node = in.nodes[i];
    if (k > 0 && in.progress[i].state == ReplanNode::State::kDone) node.rates.downlinkBytesPerSecond = kNoLimit;
    if (k > 0 && in.progress[i].state == ReplanNode::State::kReceivesOnly) node.relays = false;
    sub.push_back(std::move(node));
    if (k == 0) continue;
    // The nearest ancestor that may still serve (a failed parent's children
    // were already moved; one that may not serve loses its children).
    int up = in.parent[i];
    while (up > 0 && !serves(up)) up = in.parent[static_cast<std::size_t>(up)];
    kept[k] = up < 0 ? 0 : subOf[static_cast<std::size_t>(up)];
  }
  const std::vector<planner::NodeRates> rates = plannedRates(sub);
  const planner::SiteLinks sites = siteLinksOf(sub);
  answer.keptSeconds = predicted(kept, rates, remaining, in.chunkBytes, sites);

  const Result<SendTree> planned = bestTree(in.algo, sub, rates, sites, remaining, in.chunkBytes);
  if (!planned) {
    answer.replannedSeconds = std::numeric_limits<double>::infinity();
    answer.why = "no tree could be planned: " + planned.error().message;
    return answer;
  }
  const SendTree& best = *planned;
  answer.replannedSeconds = best.predictedSeconds;
  if (!std::isfinite(best.predictedSeconds)) {
    answer.why = "no tree could be planned";
    return answer;
  }
  // Every algorithm gives a node without uplink no children
  // (planner::hangOffNonRelays); should one not, the tree is not adopted.
  for (std::size_t k = 1; k < full.size(); ++k)
    if (best.parent[k] > 0 && !sub[static_cast<std::size_t>(best.parent[k])].relays) {
      answer.why = "the new tree has " + sub[static_cast<std::size_t>(best.parent[k])].name +
                   " relay, which may serve nobody";
      return answer;
    }
  const bool better = !std::isfinite(answer.keptSeconds) ||
                      best.predictedSeconds < answer.keptSeconds * (1.0 - in.minGain);
  if (!better) {
    answer.why = "the tree in use is within the minimum gain of the best new one";
    return answer;
  }
  answer.adopt = true;
  answer.algo = best.algo;
  answer.parent.assign(n, -1);
  answer.finish.assign(n, 0.0);
  for (std::size_t k = 1; k < full.size(); ++k) {
    const auto i = static_cast<std::size_t>(full[k]);
    answer.parent[i] = full[static_cast<std::size_t>(best.parent[k])];
    answer.finish[i] = best.finish[k];
  }
  return answer;
}

}  // namespace hnow::daemon
