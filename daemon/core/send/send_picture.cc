#include "core/send/send_picture.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "planner/broadcast/broadcast_tree.h"
#include "planner/pipelined/pipelined_tree.h"

namespace hnow::daemon {

namespace {

using api::PictureBottleneck;
using api::PictureEdge;
using api::PictureVersion;

std::string megabytesPerSecond(double bytesPerSecond) {
  char out[32];
  std::snprintf(out, sizeof out, "%.3g MB/s", bytesPerSecond / 1e6);
  return out;
}

bool near(double a, double b) { return std::abs(a - b) <= 1e-6 * std::max(std::abs(a), std::abs(b)); }

// The edge of least planned rate bounds a pipelined tree (the file moves at
// its bottleneck, docs/pipelined-broadcast.md), and in stripes each
// destination receives at the least of its stripes' rates
// (docs/striped-broadcast.md): which of the edge's two ends binds it.
std::optional<PictureBottleneck> plannedBottleneck(const PictureVersion& version, const std::vector<TreeNode>& nodes,
                                                   const std::vector<std::string>& names, int stripes) {
  const PictureEdge* least = nullptr;
  for (const PictureEdge& e : version.edges)
    if (e.plannedBytesPerS > 0 && (!least || e.plannedBytesPerS < least->plannedBytesPerS)) least = &e;
  if (!least) return std::nullopt;
  PictureBottleneck b{least->parent, least->child, "", "", false};
  const auto index = [&](const std::string& name) {
    return static_cast<std::size_t>(std::find(names.begin(), names.end(), name) - names.begin());
  };
  const std::size_t p = index(least->parent), c = index(least->child);
  const std::vector<planner::NodeRates> rates = plannedRates(nodes);
  int children = 0;
  for (const PictureEdge& e : version.edges) children += e.parent == least->parent;
  const double down = c < rates.size() ? rates[c].downlinkBytesPerSecond / std::max(stripes, 1) : 0.0;
  const double up = p < rates.size() && children > 0 ? rates[p].uplinkBytesPerSecond / children : 0.0;
  const std::string rate = megabytesPerSecond(least->plannedBytesPerS);
  if (near(least->plannedBytesPerS, down)) {
    b.node = least->child;
    b.why = least->child + "'s downlink" + (stripes > 1 ? " shared by " + std::to_string(stripes) + " stripes" : "") +
            ": " + rate;
  } else if (near(least->plannedBytesPerS, up)) {
    b.node = least->parent;
    b.why = children == 1 ? least->parent + "'s uplink, to its one child: " + rate
                          : least->parent + "'s uplink shared by " + std::to_string(children) + " children: " + rate;
  } else {
    b.why = "the link " + least->parent + " -> " + least->child + " (its rooms' trunk): " + rate;
  }
  return b;
}

// After the end: the copy held last, and on its way from the source the
// edge that achieved the least.
std::optional<PictureBottleneck> achievedBottleneck(const PictureVersion& version) {
  const PictureEdge* last = nullptr;
  for (const PictureEdge& e : version.edges)
    if (e.toS > 0 && (!last || e.toS > last->toS)) last = &e;
  if (!last) return std::nullopt;
  const PictureEdge* least = nullptr;
  // Up the stripe's tree from the last copy; at most one edge per node.
  for (const PictureEdge* at = last; at && at->achievedBytesPerS;) {
    if (!least || *at->achievedBytesPerS < *least->achievedBytesPerS) least = at;
    const PictureEdge* up = nullptr;
    for (const PictureEdge& e : version.edges)
      if (e.stripe == at->stripe && e.child == at->parent) up = &e;
    at = up;
  }
  if (!least) return std::nullopt;
  std::string why = "slowest on the way to " + last->child + ", the last copy held: " +
                    megabytesPerSecond(*least->achievedBytesPerS) + " achieved";
  if (least->plannedBytesPerS > 0) why += " of " + megabytesPerSecond(least->plannedBytesPerS) + " planned";
  return PictureBottleneck{least->parent, least->child, "", why, true};
}

}  // namespace

std::vector<std::vector<double>> plannedEdgeRates(const std::vector<std::vector<int>>& parents,
                                                  const std::vector<TreeNode>& nodes) {
  std::vector<std::vector<double>> out;
  for (const auto& parent : parents) out.emplace_back(parent.size(), 0.0);
  if (parents.empty() || nodes.size() != parents.front().size()) return out;
  const std::vector<planner::NodeRates> rates = plannedRates(nodes);
  if (parents.size() == 1) {
    auto tree = planner::treeFromParents(0, parents.front());
    if (tree) out.front() = planner::edgeRates(*tree, rates, siteLinksOf(nodes));
    return out;
  }
  std::vector<int> children(nodes.size(), 0);
  for (const auto& parent : parents)
    for (std::size_t c = 1; c < parent.size(); ++c)
      if (parent[c] >= 0) ++children[static_cast<std::size_t>(parent[c])];
  const double stripes = static_cast<double>(parents.size());
  for (std::size_t k = 0; k < parents.size(); ++k)
    for (std::size_t c = 1; c < parents[k].size(); ++c)
      if (const int p = parents[k][c]; p >= 0)
        out[k][c] = std::min(rates[static_cast<std::size_t>(p)].uplinkBytesPerSecond / children[static_cast<std::size_t>(p)],
                             rates[c].downlinkBytesPerSecond / stripes);
  return out;
}

SendPicture sendPicture(const SendStatus& status, const std::vector<const SendOperation*>& trees) {
  SendPicture picture;
  picture.algo = status.algo;
  picture.size = status.size;
  picture.predictedS = status.replannedPredictedS > 0 ? status.replannedPredictedS : status.predictedS;
  picture.elapsedS = status.elapsedS;
  picture.finished = status.finished;
  picture.stripes = trees.size() > 1 ? static_cast<int>(trees.size()) : 0;
  if (trees.empty() || trees.front()->history().versions().empty()) return picture;
  const std::vector<std::string>& names = trees.front()->names();
  const std::vector<TreeNode>& latest = trees.front()->history().versions().back().nodes;
  for (std::size_t i = 0; i < names.size(); ++i) {
    api::PictureNode node{names[i], i == 0, 0.0, 0.0};
    if (latest.size() == names.size()) {
      node.uplinkBytesPerS = latest[i].rates.uplinkBytesPerSecond;
      node.downlinkBytesPerS = latest[i].rates.downlinkBytesPerSecond;
    }
    picture.nodes.push_back(std::move(node));
  }
  // Every moment any tree changed, in order: a version of them all.
  std::vector<std::pair<double, std::string>> moments;
  for (const SendOperation* tree : trees)
    for (const TreeVersion& v : tree->history().versions()) moments.emplace_back(v.atS, v.reason);
  std::stable_sort(moments.begin(), moments.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  moments.erase(std::unique(moments.begin(), moments.end()), moments.end());
  const double nowS = status.elapsedS;
  for (const auto& [atS, reason] : moments) {
    PictureVersion version{atS, reason, {}, std::nullopt};
    std::vector<const TreeVersion*> inForce;
    std::vector<std::vector<int>> parents;
    for (const SendOperation* tree : trees) {
      const TreeVersion* at = &tree->history().versions().front();
      for (const TreeVersion& v : tree->history().versions())
        if (v.atS <= atS) at = &v;
      inForce.push_back(at);
      std::vector<int> parent(names.size(), -1);
      for (std::size_t i = 1; i < names.size(); ++i) parent[i] = tree->history().parentIn(*at, static_cast<int>(i));
      parents.push_back(std::move(parent));
    }
    const std::vector<TreeNode>& nodes = inForce.front()->nodes;
    const auto planned = plannedEdgeRates(parents, nodes);
    for (std::size_t k = 0; k < trees.size(); ++k) {
      const SendHistory& history = trees[k]->history();
      for (std::size_t i = 1; i < names.size(); ++i) {
        const int index = inForce[k]->stretchOf[i];
        if (index < 0) continue;
        const ReceiveStretch& s = history.stretch(static_cast<int>(i), index);
        PictureEdge e;
        e.parent = names[static_cast<std::size_t>(s.parent)];
        e.child = names[i];
        e.stripe = static_cast<int>(k);
        e.plannedBytesPerS = planned[k][i];
        const std::uint64_t to = s.open() ? std::max(trees[k]->heldBy(static_cast<int>(i)), s.fromBytes) : s.toBytes;
        e.bytes = to - std::min(to, s.fromBytes);
        e.fromS = s.fromS;
        e.toS = s.open() ? 0.0 : s.toS;
        const double spent = (s.open() ? nowS : s.toS) - s.fromS;
        if (e.bytes > 0 && spent > 0) e.achievedBytesPerS = static_cast<double>(e.bytes) / spent;
        version.edges.push_back(std::move(e));
      }
    }
    version.bottleneck = plannedBottleneck(version, nodes, names, static_cast<int>(trees.size()));
    picture.versions.push_back(std::move(version));
  }
  if (status.finished && !picture.versions.empty())
    if (auto achieved = achievedBottleneck(picture.versions.back())) picture.versions.back().bottleneck = achieved;
  return picture;
}

}  // namespace hnow::daemon
