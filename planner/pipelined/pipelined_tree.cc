#include "planner/pipelined/pipelined_tree.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

namespace hnow::planner {

namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();
// Rates computed along different paths (uplink / k vs a stored b) must
// compare equal when they are the same candidate.
constexpr double kRelativeSlack = 1e-12;

// How many children p can feed at rate b: floor(uplink / b), bounded by the
// node count so that a tiny b cannot overflow.
int capacityAt(const NodeRates& r, double b, int nodeCount) {
  if (r.uplinkBytesPerSecond <= 0.0) return 0;
  const double k = std::floor(r.uplinkBytesPerSecond / b * (1.0 + kRelativeSlack));
  return k >= nodeCount ? nodeCount : static_cast<int>(k);
}

bool canReceiveAt(const NodeRates& r, double b) {
  return r.downlinkBytesPerSecond * (1.0 + kRelativeSlack) >= b;
}

struct Member {
  int node;
  int capacity;
  bool destination;
  double uplink;
};

// Larger capacity first; then destinations (a relay is only worth a slot if
// it adds some), then faster uplink, then lower index: deterministic.
bool placedBefore(const Member& a, const Member& b) {
  if (a.capacity != b.capacity) return a.capacity > b.capacity;
  if (a.destination != b.destination) return a.destination;
  if (a.uplink != b.uplink) return a.uplink > b.uplink;
  return a.node < b.node;
}

class TreeSearch {
 public:
  TreeSearch(std::span<const NodeRates> rates, int source, std::vector<int> destinations, bool allowRelays)
      : rates_(rates), source_(source), n_(static_cast<int>(rates.size())), destinations_(std::move(destinations)) {
    std::vector<bool> isDestination(n_, false);
    for (int d : destinations_) isDestination[d] = true;
    if (allowRelays)
      for (int v = 0; v < n_; ++v)
        if (v != source_ && !isDestination[v]) relays_.push_back(v);
  }

  // The members at rate b, each list in placement order: every destination,
  // and each relay that can receive at b and feed two or more (a relay of
  // capacity 1 only lengthens a path). False when a destination cannot
  // receive at b.
  bool membersAt(double b, std::vector<Member>& destinations, std::vector<Member>& relays) const {
    destinations.clear();
    relays.clear();
    for (int d : destinations_) {
      if (!canReceiveAt(rates_[d], b)) return false;
      destinations.push_back({d, capacityAt(rates_[d], b, n_), true, rates_[d].uplinkBytesPerSecond});
    }
    for (int r : relays_) {
      const int cap = capacityAt(rates_[r], b, n_);
      if (cap >= 2 && canReceiveAt(rates_[r], b)) relays.push_back({r, cap, false, rates_[r].uplinkBytesPerSecond});
    }
    std::sort(destinations.begin(), destinations.end(), placedBefore);
    std::sort(relays.begin(), relays.end(), placedBefore);
    return true;
  }

  // Exact test: a tree of rate >= b exists iff, with the members in order of
  // decreasing capacity, every prefix leaves a free slot for the next node
  // (any tree's breadth-first order needs that, and this order maximizes
  // every prefix sum). Relays never hurt: one placed adds capacity - 1 >= 1.
  bool feasible(double b) const {
    std::vector<Member> dests, relays, all;
    if (!membersAt(b, dests, relays)) return false;
    std::merge(dests.begin(), dests.end(), relays.begin(), relays.end(), std::back_inserter(all), placedBefore);
    long long slots = capacityAt(rates_[source_], b, n_);
    for (const Member& m : all) {
      if (slots == 0) {
        if (m.destination) return false;
        continue;
      }
      slots += m.capacity - 1;
    }
    return true;
  }

  // A tree of rate >= b of least depth. For a fixed member set, filling
  // levels with the largest capacities first is depth-optimal: by induction
  // on i, no tree holds more nodes within depth i (docs/pipelined-broadcast.md).
  // Among relay sets of a given size the largest capacities are best
  // (exchange), so trying every prefix of the relays by capacity is exact.
  BroadcastTree build(double b) const {
    std::vector<Member> dests, relays;
    membersAt(b, dests, relays);
    BroadcastTree best;
    int bestDepth = std::numeric_limits<int>::max();
    for (size_t k = 0; k <= relays.size(); ++k) {
      std::vector<Member> all;
      std::merge(dests.begin(), dests.end(), relays.begin(), relays.begin() + k, std::back_inserter(all),
                 placedBefore);
      BroadcastTree tree;
      if (!levelFill(b, all, tree)) continue;
      const int depth = tree.depth();
      if (depth < bestDepth) {
        bestDepth = depth;
        best = std::move(tree);
      }
    }
    return best;
  }

 private:
  bool levelFill(double b, const std::vector<Member>& members, BroadcastTree& tree) const {
    tree.source = source_;
    tree.parent.assign(n_, -1);
    tree.children.assign(n_, {});
    std::vector<int> placed{source_};
    std::vector<int> freeSlots{capacityAt(rates_[source_], b, n_)};
    size_t feeder = 0;  // the first placed node with a free slot: the shallowest
    for (const Member& m : members) {
      while (feeder < placed.size() && freeSlots[feeder] == 0) ++feeder;
      if (feeder == placed.size()) {
        if (m.destination) return false;
        continue;
      }
      --freeSlots[feeder];
      tree.parent[m.node] = placed[feeder];
      tree.children[placed[feeder]].push_back(m.node);
      placed.push_back(m.node);
      freeSlots.push_back(m.capacity);
    }
    pruneRelayLeaves(tree);
    return true;
  }

  // A relay that feeds nobody costs a slot and gains nothing.
  void pruneRelayLeaves(BroadcastTree& tree) const {
    std::vector<bool> isDestination(n_, false);
    for (int d : destinations_) isDestination[d] = true;
    std::vector<int> order = tree.topDown();
    for (auto it = order.rbegin(); it != order.rend(); ++it) {
      const int v = *it;
      if (v == source_ || isDestination[v] || !tree.children[v].empty()) continue;
      auto& siblings = tree.children[tree.parent[v]];
      siblings.erase(std::find(siblings.begin(), siblings.end(), v));
      tree.parent[v] = -1;
    }
  }

  std::span<const NodeRates> rates_;
  int source_;
  int n_;
  std::vector<int> destinations_;
  std::vector<int> relays_;
};

}  // namespace

Result<BroadcastTree> maxBottleneckTree(std::span<const NodeRates> rates, int source,
                                        std::span<const int> destinations, const PipelinedTreeOptions& options) {
  using Result = Result<BroadcastTree>;
  const int n = static_cast<int>(rates.size());
  auto dests = destinationSet(n, source, destinations);
  if (!dests) return Result::failure(dests.error().message);
  if (dests->empty()) {
    BroadcastTree alone;
    alone.source = source;
    alone.parent.assign(n, -1);
    alone.children.assign(n, {});
    return alone;
  }
  if (!(rates[source].uplinkBytesPerSecond > 0.0))
    return Result::failure("the source cannot send: its uplink is 0");
  double minDownlink = kInfinity;
  for (int d : *dests) {
    if (!(rates[d].downlinkBytesPerSecond > 0.0))
      return Result::failure("destination " + std::to_string(d) + " cannot receive: its downlink is 0");
    minDownlink = std::min(minDownlink, rates[d].downlinkBytesPerSecond);
  }
  const int count = static_cast<int>(dests->size());
  TreeSearch search(rates, source, *dests, options.allowRelays);

  // No tree beats the source's uplink (it feeds at least one child) or the
  // slowest destination's downlink; the flat tree reaches min(uplink / N, ...).
  double hi = std::min(rates[source].uplinkBytesPerSecond, minDownlink);
  double lo = std::min(rates[source].uplinkBytesPerSecond / count, minDownlink);
  if (search.feasible(hi)) {
    lo = hi;
  } else {
    for (int i = 0; i < 200 && hi > lo * (1.0 + 1e-13); ++i) {
      const double mid = 0.5 * (lo + hi);
      (search.feasible(mid) ? lo : hi) = mid;
    }
  }
  // Feasibility only changes at the rates uplink(p) / k and downlink(c), and a
  // tree's bottleneck is one of them: step up from the tree found to the
  // next candidate until none is feasible, so the result is exact.
  BroadcastTree tree = search.build(lo);
  double b = bottleneckRate(tree, rates);
  for (int i = 0; i < 64 && search.feasible(b * (1.0 + 1e-9)); ++i) {
    BroadcastTree better = search.build(b * (1.0 + 1e-9));
    b = bottleneckRate(better, rates);
  }
  BroadcastTree best = search.build(b);
  // b is the bottleneck of a tree built above, so a tree exists at b.
  if (best.parent.empty()) return Result::failure("internal: no tree at the bottleneck found");
  return best;
}

std::vector<double> edgeRates(const BroadcastTree& tree, std::span<const NodeRates> rates, const SiteLinks& sites) {
  std::vector<double> rate(tree.nodeCount(), 0.0);
  // Every edge moves at once, so each shares the trunks it crosses with
  // every other edge crossing them.
  TrunkLoad trunks(sites);
  for (int v = 0; v < tree.nodeCount(); ++v)
    if (tree.parent[v] >= 0) trunks.add(tree.parent[v], v);
  for (int v = 0; v < tree.nodeCount(); ++v) {
    const int p = tree.parent[v];
    if (p < 0) continue;
    const double share = rates[p].uplinkBytesPerSecond / static_cast<double>(tree.children[p].size());
    rate[v] = std::min({share, rates[v].downlinkBytesPerSecond, trunks.shareOf(p, v)});
    if (sites.crossesSites(p, v) && sites.crossSiteBytesPerSecond > 0.0)
      rate[v] = std::min(rate[v], sites.crossSiteBytesPerSecond);
    rate[v] = std::max(rate[v], 0.0);
  }
  return rate;
}

double bottleneckRate(const BroadcastTree& tree, std::span<const NodeRates> rates, const SiteLinks& sites) {
  const std::vector<double> rate = edgeRates(tree, rates, sites);
  double b = kInfinity;
  for (int v = 0; v < tree.nodeCount(); ++v)
    if (tree.parent[v] >= 0) b = std::min(b, rate[v]);
  return b == kInfinity ? 0.0 : b;
}

Result<PipelinedPrediction> predictPipelined(const BroadcastTree& tree, std::span<const NodeRates> rates,
                                             double fileBytes, double chunkBytes, const SiteLinks& sites) {
  using Result = Result<PipelinedPrediction>;
  if (static_cast<int>(rates.size()) != tree.nodeCount()) return Result::failure("one rate per node of the tree");
  if (auto checked = checkTree(tree, tree.source, {}); !checked) return checked.error();
  if (!(fileBytes >= 0.0)) return Result::failure("the file size is negative");
  if (!(chunkBytes > 0.0)) return Result::failure("the chunk size must be positive");
  if (!sites.siteOf.empty() && static_cast<int>(sites.siteOf.size()) != tree.nodeCount())
    return Result::failure("one site per node");

  const int n = tree.nodeCount();
  const std::vector<double> rate = edgeRates(tree, rates, sites);
  const double chunk = std::min(chunkBytes, fileBytes);
  const double rest = fileBytes - chunk;
  auto bytesOver = [](double bytes, double r) { return bytes > 0.0 ? bytes / r : 0.0; };  // r = 0 -> inf

  PipelinedPrediction out;
  out.finishSeconds.assign(n, -1.0);
  out.depth = tree.depth();
  out.bottleneckBytesPerSecond = bottleneckRate(tree, rates, sites);
  const std::vector<int> order = tree.topDown();
  // The first chunk's arrival, and the subtree of the source's child each node is in.
  std::vector<double> firstChunk(n, 0.0);
  std::vector<int> branch(n, -1);
  std::vector<double> branchRate(n, kInfinity);
  for (int v : order) {
    if (v == tree.source) continue;
    const int p = tree.parent[v];
    const NodeRates& from = rates[p];
    double hop = static_cast<double>(tree.children[p].size()) * from.sendOverheadSeconds +
                 rates[v].receiveOverheadSeconds + bytesOver(chunk, rate[v]);
    if (sites.crossesSites(p, v)) hop += sites.crossSiteLatencySeconds;
    firstChunk[v] = firstChunk[p] + hop;
    branch[v] = p == tree.source ? v : branch[p];
    branchRate[branch[v]] = std::min(branchRate[branch[v]], rate[v]);
  }
  out.finishSeconds[tree.source] = 0.0;
  for (int v : order) {
    if (v == tree.source) continue;
    out.finishSeconds[v] = firstChunk[v] + bytesOver(rest, branchRate[branch[v]]);
    out.seconds = std::max(out.seconds, out.finishSeconds[v]);
  }
  return out;
}

double fluidLowerBound(std::span<const NodeRates> rates, int source, std::span<const int> destinations,
                       double fileBytes, const PipelinedTreeOptions& options) {
  const int n = static_cast<int>(rates.size());
  auto dests = destinationSet(n, source, destinations);
  if (!dests || dests->empty() || !(fileBytes > 0.0)) return 0.0;
  double minDownlink = kInfinity;
  double uplinks = std::max(rates[source].uplinkBytesPerSecond, 0.0);
  std::vector<bool> isDestination(n, false);
  for (int d : *dests) {
    isDestination[d] = true;
    minDownlink = std::min(minDownlink, rates[d].downlinkBytesPerSecond);
    uplinks += std::max(rates[d].uplinkBytesPerSecond, 0.0);
  }
  // A tree of rate b with relays R has (N + |R|)·b <= uplink(source) +
  // Σ_D uplink + Σ_R uplink; the best R for that ratio is a prefix of the
  // relays by uplink.
  std::vector<double> relayUplinks;
  if (options.allowRelays)
    for (int v = 0; v < n; ++v)
      if (v != source && !isDestination[v]) relayUplinks.push_back(std::max(rates[v].uplinkBytesPerSecond, 0.0));
  std::sort(relayUplinks.rbegin(), relayUplinks.rend());
  double receivers = static_cast<double>(dests->size());
  double bestRate = uplinks / receivers;
  for (double u : relayUplinks) {
    uplinks += u;
    receivers += 1.0;
    bestRate = std::max(bestRate, uplinks / receivers);
  }
  const double byDownlink = minDownlink > 0.0 ? fileBytes / minDownlink : kInfinity;
  // bestRate is (uplinks) / N without relays: the N·size / Σ uplinks.
  const double byUplinks = bestRate > 0.0 ? fileBytes / bestRate : kInfinity;
  // The source sends every byte at least once.
  const double sourceUp = rates[source].uplinkBytesPerSecond;
  const double bySource = sourceUp > 0.0 ? fileBytes / sourceUp : kInfinity;
  return std::max({byDownlink, byUplinks, bySource});
}

}  // namespace hnow::planner
