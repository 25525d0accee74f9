#include "core/trunk_survey.h"

#include <algorithm>
#include <set>

namespace hnow::daemon {

namespace {

constexpr const char* kTrunkPrefix = "room:";

std::vector<std::string> membersOf(const std::vector<SurveyNode>& nodes, const std::string& room) {
  std::vector<std::string> out;
  for (const SurveyNode& n : nodes)
    if (n.site == room) out.push_back(n.name);
  return out;
}

// Fastest first by the known rate of `direction`, names breaking ties.
void byKnown(std::vector<std::string>& names, const KnownRate& known, LinkDirection direction) {
  std::stable_sort(names.begin(), names.end(), [&](const std::string& a, const std::string& b) {
    const double ra = known({a, direction}), rb = known({b, direction});
    return ra != rb ? ra > rb : a < b;
  });
}

// The nodes across the trunk from `room`: those of every other room, one
// room after another, each room's by `direction`'s known rate. Flows to (or
// from) every other room at once read the trunk itself, not one other
// room's trunk: with rooms A, B and C on a router, B's trunk out measured
// towards A alone reads A's trunk in.
std::vector<std::string> farSide(const std::vector<SurveyNode>& nodes, const std::string& room, const KnownRate& known,
                                 LinkDirection direction) {
  std::map<std::string, std::vector<std::string>> byRoom;
  for (const SurveyNode& n : nodes)
    if (n.site != room && !n.site.empty()) byRoom[n.site].push_back(n.name);
  for (auto& [site, names] : byRoom) byKnown(names, known, direction);
  std::vector<std::string> out;
  for (std::size_t k = 0;; ++k) {
    bool any = false;
    for (const auto& [site, names] : byRoom)
      if (k < names.size()) out.push_back(names[k]), any = true;
    if (!any) return out;
  }
}

}  // namespace

LinkId trunkLink(const std::string& room, LinkDirection direction) { return {kTrunkPrefix + room, direction}; }

std::optional<std::string> trunkRoom(const LinkId& link) {
  if (link.node.rfind(kTrunkPrefix, 0) != 0) return std::nullopt;
  return link.node.substr(std::string(kTrunkPrefix).size());
}

std::vector<ProbeRound> planTrunkSurvey(const std::vector<SurveyNode>& nodes, const std::vector<LinkId>& targets,
                                        const KnownRate& known, const TrunkSurveyOptions& options) {
  std::vector<ProbeRound> rounds;
  for (const LinkId& target : targets) {
    const auto room = trunkRoom(target);
    if (!room || room->empty()) continue;
    const bool inwards = target.direction == LinkDirection::kDown;
    std::vector<std::string> senders = inwards ? farSide(nodes, *room, known, LinkDirection::kUp)
                                               : membersOf(nodes, *room);
    std::vector<std::string> receivers = inwards ? membersOf(nodes, *room)
                                                 : farSide(nodes, *room, known, LinkDirection::kDown);
    if (senders.empty() || receivers.empty()) continue;
    if (!inwards) byKnown(senders, known, LinkDirection::kUp);
    if (inwards) byKnown(receivers, known, LinkDirection::kDown);
    // Disjoint pairs as far as both sides go; then the side with more nodes
    // takes the other side's round robin, so every node of it helps.
    const std::size_t flows =
        std::min<std::size_t>(static_cast<std::size_t>(options.maxFlows), std::max(senders.size(), receivers.size()));
    ProbeRound round;
    round.target = target;
    for (std::size_t k = 0; k < flows; ++k)
      round.flows.emplace_back(senders[k % senders.size()], receivers[k % receivers.size()]);
    rounds.push_back(std::move(round));
  }
  return rounds;
}

SurveyFinding judgeTrunkRound(const ProbeRound& round, const RoundOutcome& outcome, const KnownRate& known,
                              const TrunkSurveyOptions& options) {
  SurveyFinding finding;
  finding.link = round.target;
  std::map<std::string, int> sending, receiving;
  for (const auto& [from, to] : round.flows) {
    ++sending[from];
    ++receiving[to];
  }
  double carried = 0.0, ends = 0.0;
  bool endsKnown = true;
  for (const auto& [from, to] : round.flows) {
    double got = 0.0;
    for (const Flow& f : outcome.flows)
      if (f.from == from && f.to == to) got = std::max(got, f.bytesPerSecond);
    carried += got;
    const double up = known({from, LinkDirection::kUp}), down = known({to, LinkDirection::kDown});
    if (!(up > 0.0) || !(down > 0.0)) endsKnown = false;
    ends += std::min(up / sending[from], down / receiving[to]);
  }
  finding.bytesPerSecond = carried;
  finding.samples = 1;
  finding.saturated = endsKnown && carried > 0.0 && carried < (1.0 - options.headroom) * ends;
  return finding;
}

std::vector<LinkId> unmeasuredTrunks(const std::vector<SurveyNode>& nodes, const KnownRate& known) {
  std::set<std::string> rooms;
  for (const SurveyNode& n : nodes)
    if (!n.site.empty()) rooms.insert(n.site);
  std::vector<LinkId> out;
  if (rooms.size() < 2) return out;
  for (const std::string& room : rooms)
    for (LinkDirection d : {LinkDirection::kDown, LinkDirection::kUp})
      if (!(known(trunkLink(room, d)) > 0.0)) out.push_back(trunkLink(room, d));
  return out;
}

planner::Trunk knownTrunk(const KnownRate& known, const std::string& room) {
  return {known(trunkLink(room, LinkDirection::kDown)), known(trunkLink(room, LinkDirection::kUp))};
}

}  // namespace hnow::daemon
