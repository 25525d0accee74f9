#include "core/links/trunk_verdict.h"

#include <algorithm>
#include <set>

#include "core/links/trunk_survey.h"

namespace hnow::daemon {

namespace {

std::string roomOfNode(const std::map<std::string, std::string>& roomOf, const std::string& node) {
  auto it = roomOf.find(node);
  return it == roomOf.end() ? std::string() : it->second;
}

}  // namespace

TrunkVerdict judgeTrunks(const std::vector<Flow>& flows, const std::map<std::string, NodeLoad>& loads,
                         const std::map<std::string, std::string>& roomOf, const KnownRate& known,
                         const VerdictOptions& options) {
  // Each end's load: its interface's when known, else its flows' sum.
  std::map<LinkId, double> flowsTotal;
  for (const Flow& f : flows) {
    flowsTotal[{f.from, LinkDirection::kUp}] += f.bytesPerSecond;
    flowsTotal[{f.to, LinkDirection::kDown}] += f.bytesPerSecond;
  }
  auto roomy = [&](const LinkId& link) {
    const double k = known(link);
    double load = flowsTotal[link];
    if (auto it = loads.find(link.node); it != loads.end() && it->second.atInterface)
      load = link.direction == LinkDirection::kUp ? it->second.sent : it->second.received;
    return k > 0 && load < (1.0 - options.headroom) * k;
  };
  struct Crossing {
    double carried = 0.0;
    bool unexplained = true;  // every flow across it had room at both ends
    bool judged = true;       // every flow across it was fed and long enough to say something
  };
  std::map<LinkId, Crossing> trunks;
  std::vector<std::vector<LinkId>> crosses(flows.size());
  for (std::size_t i = 0; i < flows.size(); ++i) {
    const Flow& f = flows[i];
    const std::string from = roomOfNode(roomOf, f.from), to = roomOfNode(roomOf, f.to);
    if (from == to || f.from == f.to) continue;
    if (!from.empty()) crosses[i].push_back(trunkLink(from, LinkDirection::kUp));
    if (!to.empty()) crosses[i].push_back(trunkLink(to, LinkDirection::kDown));
    const bool says = f.fed && !f.starved && f.bytesPerSecond >= options.minFlowBytesPerSecond;
    const bool neitherEnd = roomy({f.from, LinkDirection::kUp}) && roomy({f.to, LinkDirection::kDown});
    for (const LinkId& t : crosses[i]) {
      Crossing& c = trunks[t];
      c.carried += f.bytesPerSecond;
      c.judged &= says;
      c.unexplained &= neitherEnd;
    }
  }
  // A trunk whose flows also cross a busier trunk that had no room to
  // spare was held by that one: rooms A, B and C behind a router, A's trunk
  // out carries the flows into B and into C, and each of those reads half
  // of it, which says nothing of B's or C's trunk in.
  auto heldElsewhere = [&](const LinkId& link) {
    const double carried = trunks.at(link).carried;
    for (const std::vector<LinkId>& path : crosses) {
      if (std::find(path.begin(), path.end(), link) == path.end()) continue;
      for (const LinkId& other : path) {
        if (other == link) continue;
        const double k = known(other), theirs = trunks.at(other).carried;
        // Known and full, carrying as much: it explains these flows (when
        // both are full of the same flows, neither is read: a tie). Not
        // known: only a busier one does.
        const bool full = k > 0 && theirs >= (1.0 - options.headroom) * k && theirs >= carried * (1.0 - 1e-6);
        const bool busier = !(k > 0) && theirs > carried * (1.0 + 1e-6);
        if (full || busier) return true;
      }
    }
    return false;
  };
  TrunkVerdict out;
  std::set<LinkId> limiting;
  for (const auto& [link, c] : trunks) {
    const bool saturated = c.judged && c.unexplained && c.carried > 0.0 && !heldElsewhere(link);
    out.readings.push_back({link, c.carried, saturated, 0.0});
    if (saturated) limiting.insert(link);
  }
  for (std::size_t i = 0; i < flows.size(); ++i) {
    bool explained = false;
    for (const LinkId& t : crosses[i]) explained |= limiting.count(t) > 0;
    if (!explained) out.rest.push_back(flows[i]);
  }
  return out;
}

}  // namespace hnow::daemon
