#include "core/links/trunk_survey.h"

#include <algorithm>
#include <functional>
#include <set>

namespace hnow::daemon {

namespace {

constexpr const char* kTrunkPrefix = "room:";
constexpr double kNoLimit = planner::Trunk::kNoLimit;

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
    // A receiver connects to its sender: one others cannot reach sends in no flow.
    std::erase_if(senders, [&](const std::string& name) {
      return std::any_of(nodes.begin(), nodes.end(), [&](const SurveyNode& n) { return n.name == name && !n.serves; });
    });
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

namespace {

// What a far room's trunk lets the round's flows carry: +infinity when it
// is not known.
using FarLimit = std::function<double(const std::string& farRoom)>;

SurveyFinding judge(const ProbeRound& round, const RoundOutcome& outcome, const KnownRate& known,
                    const std::map<std::string, std::string>* roomOf, const FarLimit& farLimit,
                    const TrunkSurveyOptions& options) {
  SurveyFinding finding;
  finding.link = round.target;
  const bool inwards = round.target.direction == LinkDirection::kDown;
  std::map<std::string, int> sending, receiving;
  for (const auto& [from, to] : round.flows) {
    ++sending[from];
    ++receiving[to];
  }
  double carried = 0.0, ends = 0.0;
  std::map<std::string, double> farEnds;  // per far room: its flows' ends
  bool endsKnown = true;
  for (const auto& [from, to] : round.flows) {
    double got = 0.0;
    for (const Flow& f : outcome.flows)
      if (f.from == from && f.to == to) got = std::max(got, f.bytesPerSecond);
    carried += got;
    const double up = known({from, LinkDirection::kUp}), down = known({to, LinkDirection::kDown});
    if (!(up > 0.0) || !(down > 0.0)) endsKnown = false;
    const double end = std::min(up / sending[from], down / receiving[to]);
    ends += end;
    if (roomOf) {
      const std::string& far = inwards ? from : to;
      auto room = roomOf->find(far);
      farEnds[room == roomOf->end() ? std::string() : room->second] += end;
    }
  }
  double limit = ends;
  if (roomOf && farEnds.size() >= 2) {
    double far = 0.0;
    for (const auto& [room, e] : farEnds) far += std::min(e, room.empty() ? kNoLimit : farLimit(room));
    limit = std::min(limit, far);
  }
  finding.bytesPerSecond = carried;
  finding.samples = 1;
  finding.saturated = endsKnown && carried > 0.0 && carried < (1.0 - options.headroom) * limit;
  return finding;
}

}  // namespace

SurveyFinding judgeTrunkRound(const ProbeRound& round, const RoundOutcome& outcome, const KnownRate& known,
                              const TrunkSurveyOptions& options) {
  return judge(round, outcome, known, nullptr, {}, options);
}

std::vector<SurveyFinding> judgeTrunkSurvey(const std::vector<std::pair<ProbeRound, RoundOutcome>>& rounds,
                                            const std::map<std::string, std::string>& roomOf, const KnownRate& known,
                                            const KnownRate& capacity, const TrunkSurveyOptions& options) {
  std::map<LinkId, double> saturated;  // this survey's first judgement
  for (const auto& [round, outcome] : rounds) {
    const SurveyFinding f = judgeTrunkRound(round, outcome, known, options);
    if (f.saturated) saturated[f.link] = std::max(saturated[f.link], f.bytesPerSecond);
  }
  std::vector<SurveyFinding> out;
  for (const auto& [round, outcome] : rounds) {
    // Into X the far rooms send through their trunks out; out of X they
    // take in through theirs.
    const LinkDirection farDirection =
        round.target.direction == LinkDirection::kDown ? LinkDirection::kUp : LinkDirection::kDown;
    const FarLimit farLimit = [&](const std::string& room) {
      const LinkId trunk = trunkLink(room, farDirection);
      if (auto s = saturated.find(trunk); s != saturated.end()) return s->second;
      const double c = capacity(trunk);
      return c > 0.0 ? c : kNoLimit;
    };
    out.push_back(judge(round, outcome, known, &roomOf, farLimit, options));
  }
  return out;
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

planner::Trunk knownTrunk(const LinkBook& book, const std::string& room) {
  // A bound: the survey's flows could not fill the trunk, so it limits
  // nothing they could tell; a send that fills it is read by the passive
  // verdicts (trunk_verdict.h).
  auto plannedAt = [&](LinkDirection d) {
    const LinkRate* r = book.rate(trunkLink(room, d));
    if (!r || !r->known()) return 0.0;
    return r->bound() ? planner::Trunk::kNoLimit : r->bytesPerSecond;
  };
  return {plannedAt(LinkDirection::kDown), plannedAt(LinkDirection::kUp)};
}

}  // namespace hnow::daemon
