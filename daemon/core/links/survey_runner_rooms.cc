// SurveyRunner's rounds about rooms (docs/rooms.md): finding them on one
// subnet (room_discovery.h) and measuring their trunks (trunk_survey.h).
#include <algorithm>
#include <map>

#include "core/links/rooms.h"
#include "core/links/survey_runner.h"

namespace hnow::daemon {

std::vector<LinkId> SurveyRunner::trunkLinks(bool all) const {
  const LinkBook& book = coordinator_.links();
  std::vector<SurveyNode> nodes;
  for (const SurveyNode& n : surveyNodes()) {
    // Agents that pace both their links (hnow local) would measure their
    // pacing, not a trunk.
    if (n.name != kCoordinatorNode && book.pacesBoth(n.name)) continue;
    nodes.push_back(n);
  }
  return unmeasuredTrunks(nodes, [&book, all](const LinkId& l) { return all ? 0.0 : book.knownAtLeast(l); });
}

std::vector<SurveyFinding> SurveyRunner::trunkFindings(const Survey& survey) const {
  const LinkBook& book = coordinator_.links();
  std::map<std::string, std::string> roomOf;
  for (const SurveyNode& n : surveyNodes()) roomOf[n.name] = n.site;
  return judgeTrunkSurvey(
      survey.trunkRounds, roomOf, [&book](const LinkId& l) { return book.knownAtLeast(l); },
      [&book](const LinkId& l) {
        const LinkRate* r = book.rate(l);
        return r && r->known() && !r->bound() ? r->bytesPerSecond : 0.0;
      },
      options_.trunk);
}

std::vector<std::string> SurveyRunner::roomDiscoveryNodes() const {
  const LinkBook& book = coordinator_.links();
  const std::vector<AgentView> agents = coordinator_.status();
  if (!agentRooms(agents, coordinator_.linkKnowledge().ownNetworks()).foundBy.empty()) return {};
  auto measured = [&book](const std::string& node) {
    return book.knownAtLeast({node, LinkDirection::kUp}) > 0 && book.knownAtLeast({node, LinkDirection::kDown}) > 0;
  };
  std::vector<std::string> nodes;
  for (const SurveyNode& n : surveyNodes()) {
    if (n.name == kCoordinatorNode) continue;
    // Agents pacing both their links (hnow local) share no real switch.
    if (book.pacesBoth(n.name)) continue;
    if (!measured(n.name)) return {};  // their links first
    nodes.push_back(n.name);
  }
  if (nodes.size() < 3) return {};
  const auto& found = coordinator_.linkKnowledge().measuredRooms();
  if (std::all_of(nodes.begin(), nodes.end(), [&](const std::string& n) { return found.count(n) > 0; })) return {};
  if (measured(kCoordinatorNode)) nodes.push_back(kCoordinatorNode);
  return nodes;
}

void SurveyRunner::beginDiscovery(const std::vector<std::string>& nodes) {
  Survey survey;
  survey.rounds = planRoomDiscovery(nodes, options_.discovery);
  if (survey.rounds.empty()) return;
  survey.discovery = true;
  survey.started = clock_.now();
  current_ = std::move(survey);
  startRound();
}

void SurveyRunner::finishDiscovery(const Survey& survey, bool aborted) {
  // Only rounds that all answered say which pairs share a switch.
  if (!aborted && survey.errors.empty() && survey.outcomes.size() == survey.rounds.size()) {
    const LinkBook& book = coordinator_.links();
    const DiscoveredRooms found = judgeRoomDiscovery(
        survey.rounds, survey.outcomes, [&book](const LinkId& l) { return book.knownAtLeast(l); },
        options_.discovery);
    coordinator_.linkKnowledge().setMeasuredRooms(found.roomOf);
    // Decided, one room or several: asked again only when the agents change.
    discoveryRetryAt_ = TimePoint::max();
    if (discovered_) discovered_(found);
  }
}

}  // namespace hnow::daemon
