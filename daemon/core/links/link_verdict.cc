#include "core/links/link_verdict.h"

#include <algorithm>
#include <set>

namespace hnow::daemon {

namespace {

struct Claim {
  int backing = 0;      // flows whose other end had headroom
  bool awarded = false;
};

// A node's load on a link. Counted at its interface, it is what the link
// carried. From hnow's counters, at least what its own flows moved (the
// load and the flows come from samples a few milliseconds apart). Not so at
// an interface: a receiver short of CPU reads what its socket held before
// the window opened (up to a 2 MiB window per flow) within the window, and
// four such flows read a 200 Mbit/s uplink at 285.
double loadOn(const LinkId& link, const std::map<std::string, NodeLoad>& loads, double flowsTotal) {
  auto it = loads.find(link.node);
  if (it == loads.end()) return flowsTotal;
  const double load = link.direction == LinkDirection::kUp ? it->second.sent : it->second.received;
  return it->second.atInterface ? load : std::max(load, flowsTotal);
}

double foreignOn(const LinkId& link, const std::map<std::string, NodeLoad>& loads) {
  auto it = loads.find(link.node);
  if (it == loads.end()) return 0.0;
  return link.direction == LinkDirection::kUp ? it->second.foreignSent : it->second.foreignReceived;
}

}  // namespace

std::vector<LinkReading> judgeFlows(const std::vector<Flow>& flows, const std::map<std::string, NodeLoad>& loads,
                                    const KnownRate& known, const VerdictOptions& options) {
  std::vector<Flow> counted;
  std::set<LinkId> partlyIdle;
  for (const Flow& f : flows) {
    if (f.from == f.to) continue;
    if (f.starved) {
      partlyIdle.insert({f.from, LinkDirection::kUp});
      partlyIdle.insert({f.to, LinkDirection::kDown});
    }
    if (f.fed && !f.starved && f.bytesPerSecond >= options.minFlowBytesPerSecond) counted.push_back(f);
  }

  std::map<LinkId, double> flowsTotal;
  for (const Flow& f : counted) {
    flowsTotal[{f.from, LinkDirection::kUp}] += f.bytesPerSecond;
    flowsTotal[{f.to, LinkDirection::kDown}] += f.bytesPerSecond;
  }
  auto load = [&](const LinkId& link) { return loadOn(link, loads, flowsTotal[link]); };
  auto roomy = [&](const LinkId& link) {
    const double k = known(link);
    return k > 0 && load(link) < (1.0 - options.headroom) * k;
  };

  // Per flow: does it back its sender's uplink (the receiver had room), its
  // receiver's downlink (the sender had room), or both?
  struct Backing {
    LinkId up, down;
    bool upLimited, downLimited;
  };
  std::vector<Backing> backings;
  std::map<LinkId, Claim> claims;
  for (const Flow& f : counted) {
    Backing b{{f.from, LinkDirection::kUp}, {f.to, LinkDirection::kDown}, false, false};
    b.upLimited = roomy(b.down);
    b.downLimited = roomy(b.up);
    claims[b.up].backing += b.upLimited;
    claims[b.down].backing += b.downLimited;
    backings.push_back(b);
  }
  for (const Backing& b : backings) {
    if (b.upLimited && b.downLimited) {
      // Both ends had room by what is known of them: one of those is stale
      // (or neither link was the limit). The side more flows point at wins.
      const int up = claims[b.up].backing, down = claims[b.down].backing;
      if (up > down) claims[b.up].awarded = true;
      if (down > up) claims[b.down].awarded = true;
    } else if (b.upLimited) {
      claims[b.up].awarded = true;
    } else if (b.downLimited) {
      claims[b.down].awarded = true;
    }
  }

  std::vector<LinkReading> readings;
  for (const auto& [link, total] : flowsTotal)
    readings.push_back({link, load(link), claims[link].awarded && !partlyIdle.count(link), foreignOn(link, loads)});
  return readings;
}

}  // namespace hnow::daemon
