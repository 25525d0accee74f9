#include "planner/rate_models.h"

#include <algorithm>
#include <limits>
#include <map>

namespace hnow::planner {

namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();

double bytesOver(double bytes, double rate) { return bytes > 0.0 ? bytes / rate : 0.0; }

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values[values.size() / 2];
}

// How long a store-and-forward send p -> c keeps p busy, and how much later c holds the file.
struct SendCost {
  double busy;
  double arrival;
};

SendCost sendCost(std::span<const NodeRates> rates, const SiteLinks& sites, int p, int c, double m) {
  double rate = std::min(rates[p].uplinkBytesPerSecond, rates[c].downlinkBytesPerSecond);
  double latency = rates[c].receiveOverheadSeconds;
  if (sites.crossesSites(p, c)) {
    if (sites.crossSiteBytesPerSecond > 0.0) rate = std::min(rate, sites.crossSiteBytesPerSecond);
    latency += sites.crossSiteLatencySeconds;
  }
  const double busy = rates[p].sendOverheadSeconds + bytesOver(m, std::max(rate, 0.0));
  return {busy, busy + latency};
}

}  // namespace

std::vector<double> senderDeterminedSendTimes(std::span<const NodeRates> rates, double messageBytes) {
  std::vector<double> t;
  t.reserve(rates.size());
  for (const NodeRates& r : rates)
    t.push_back(r.uplinkBytesPerSecond > 0.0 ? r.sendOverheadSeconds + bytesOver(messageBytes, r.uplinkBytesPerSecond)
                                             : kInfinity);
  return t;
}

Result<Participants> participantsOf(int nodeCount, int source, std::span<const int> destinations) {
  auto dests = destinationSet(nodeCount, source, destinations);
  if (!dests) return Result<Participants>::failure(dests.error().message);
  Participants p;
  p.nodes = std::move(dests.value());
  p.nodes.insert(std::lower_bound(p.nodes.begin(), p.nodes.end(), source), source);
  p.sourceIndex = static_cast<int>(std::find(p.nodes.begin(), p.nodes.end(), source) - p.nodes.begin());
  return p;
}

std::vector<NodeRates> ratesOf(const Participants& participants, std::span<const NodeRates> rates) {
  std::vector<NodeRates> out;
  out.reserve(participants.nodes.size());
  for (int v : participants.nodes) out.push_back(rates[v]);
  return out;
}

Schedule toNodeIds(const Participants& participants, std::span<const Transfer> local) {
  Schedule out(local.begin(), local.end());
  for (Transfer& x : out) {
    x.from = participants.nodes[x.from];
    x.to = participants.nodes[x.to];
  }
  return out;
}

Result<TwoLevelFromRates> twoLevelFromRates(std::span<const NodeRates> rates, const Participants& participants,
                                            const SiteLinks& sites, double messageBytes) {
  using Result = Result<TwoLevelFromRates>;
  const int n = static_cast<int>(rates.size());
  if (!sites.siteOf.empty() && static_cast<int>(sites.siteOf.size()) != n)
    return Result::failure("one site per node");
  const int source = participants.nodes[participants.sourceIndex];
  auto siteOf = [&](int v) { return sites.siteOf.empty() ? 0 : sites.siteOf[v]; };
  const std::vector<double> t = senderDeterminedSendTimes(rates, messageBytes);

  // Clusters in order of first appearance, the source's first.
  std::map<int, int> clusterOfSite{{siteOf(source), 0}};
  std::vector<std::vector<int>> members(1);
  for (int v : participants.nodes) {
    auto [it, added] = clusterOfSite.emplace(siteOf(v), static_cast<int>(members.size()));
    if (added) members.emplace_back();
    if (v != source) members[it->second].push_back(v);
  }
  TwoLevelFromRates out;
  std::vector<int> sizes;
  for (size_t c = 0; c < members.size(); ++c) {
    std::stable_sort(members[c].begin(), members[c].end(), [&](int a, int b) { return t[a] < t[b]; });
    if (c == 0) out.nodeOfLayout.push_back(source);
    out.nodeOfLayout.insert(out.nodeOfLayout.end(), members[c].begin(), members[c].end());
    sizes.push_back(static_cast<int>(members[c].size()) + (c == 0 ? 1 : 0));
  }

  std::vector<double> local, global;
  for (int v : participants.nodes) {
    if (!(rates[v].uplinkBytesPerSecond > 0.0)) continue;  // never a sender worth timing
    local.push_back(t[v]);
    double rate = rates[v].uplinkBytesPerSecond;
    if (sites.crossSiteBytesPerSecond > 0.0) rate = std::min(rate, sites.crossSiteBytesPerSecond);
    global.push_back(rates[v].sendOverheadSeconds + bytesOver(messageBytes, rate) + sites.crossSiteLatencySeconds);
  }
  if (local.empty()) return Result::failure("no participant can send: every uplink is 0");
  const double localTime = median(local);
  // The seed's times are positive; a zero-byte file with no overheads still
  // needs an order of sends, so give it unit times.
  const double unit = localTime > 0.0 ? localTime : 1.0;
  out.instance = broadcastInstance(std::move(sizes), unit, std::max(median(global), unit));
  return out;
}

StoreAndForwardPrediction predictStoreAndForward(const BroadcastTree& tree, std::span<const NodeRates> rates,
                                                 double messageBytes, const SiteLinks& sites) {
  StoreAndForwardPrediction out;
  out.finishSeconds.assign(tree.nodeCount(), -1.0);
  out.finishSeconds[tree.source] = 0.0;
  for (int p : tree.topDown()) {
    double clock = out.finishSeconds[p];
    for (int c : tree.children[p]) {
      const SendCost cost = sendCost(rates, sites, p, c, messageBytes);
      out.finishSeconds[c] = clock + cost.arrival;
      clock += cost.busy;
    }
  }
  for (double f : out.finishSeconds) out.seconds = std::max(out.seconds, f);
  return out;
}

}  // namespace hnow::planner
