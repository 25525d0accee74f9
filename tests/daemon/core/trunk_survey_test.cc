// Trunk surveys (daemon/core/links/trunk_survey.h): rounds of disjoint pairs
// across a room's trunk, from hnowd's room or the largest; a trunk that
// held its flows well under what their ends carry is measured, one that
// did not is a bound.
#include <doctest/doctest.h>

#include <map>
#include <set>

#include "core/links/trunk_survey.h"

using namespace hnow::daemon;

namespace {

constexpr double kMbps = 1e6 / 8;

// hnowd alone, four agents in A, four in B, every link 400 Mbit/s.
std::vector<SurveyNode> twoRooms() {
  std::vector<SurveyNode> nodes{{"hnowd", ""}};
  for (int i = 1; i <= 8; ++i) nodes.push_back({"a" + std::to_string(i), i <= 4 ? "A" : "B"});
  return nodes;
}

double everyLink(const LinkId& link) { return trunkRoom(link) ? 0.0 : 400 * kMbps; }

RoundOutcome eachFlowAt(const ProbeRound& round, double bytesPerSecond) {
  RoundOutcome outcome;
  for (const auto& [from, to] : round.flows) outcome.flows.push_back({from, to, bytesPerSecond});
  return outcome;
}

}  // namespace

TEST_CASE("trunk links are a room's pseudo-node, never an agent's name") {
  const LinkId in = trunkLink("B", LinkDirection::kDown);
  CHECK(in.node == "room:B");
  CHECK(trunkRoom(in) == std::optional<std::string>("B"));
  CHECK_FALSE(trunkRoom({"agent-1", LinkDirection::kDown}));
}

TEST_CASE("two rooms: both trunk directions of each are targets, hnowd alone is no room") {
  const auto targets = unmeasuredTrunks(twoRooms(), everyLink);
  CHECK(targets.size() == 4);
  for (const LinkId& t : targets) CHECK(trunkRoom(t) != std::optional<std::string>(""));
  // One room of agents: no trunk to measure.
  std::vector<SurveyNode> one{{"hnowd", ""}, {"a1", "A"}, {"a2", "A"}};
  CHECK(unmeasuredTrunks(one, everyLink).empty());
  // Known trunks are not targets again.
  auto known = [](const LinkId& link) { return link.node == "room:A" ? 100 * kMbps : everyLink(link); };
  CHECK(unmeasuredTrunks(twoRooms(), known).size() == 2);
}

TEST_CASE("a round into a room: disjoint pairs from the other room, fastest first") {
  auto known = [](const LinkId& link) {
    if (trunkRoom(link)) return 0.0;
    return link.node == "a3" ? 800 * kMbps : 400 * kMbps;  // a3 the fastest sender
  };
  const auto rounds = planTrunkSurvey(twoRooms(), {trunkLink("B", LinkDirection::kDown)}, known);
  REQUIRE(rounds.size() == 1);
  const ProbeRound& r = rounds.front();
  REQUIRE(r.flows.size() == 4);
  CHECK(r.flows[0].first == "a3");
  std::set<std::string> from, to;
  for (const auto& [f, t] : r.flows) {
    from.insert(f);
    to.insert(t);
    CHECK(f.size() == 2);
    CHECK((f[1] - '0') <= 4);  // senders from A
    CHECK((t[1] - '0') >= 5);  // receivers in B
  }
  CHECK(from.size() == 4);
  CHECK(to.size() == 4);
  // Out of room B: B's agents send to A's.
  const auto out = planTrunkSurvey(twoRooms(), {trunkLink("B", LinkDirection::kUp)}, known);
  REQUIRE(out.size() == 1);
  for (const auto& [f, t] : out.front().flows) {
    CHECK((f[1] - '0') >= 5);
    CHECK((t[1] - '0') <= 4);
  }
}

TEST_CASE("three rooms: a trunk is measured against every other room at once, hnowd among its room's nodes") {
  std::vector<SurveyNode> nodes{{"hnowd", "A"}, {"a1", "A"}, {"b1", "B"}, {"c1", "C"}, {"c2", "C"}};
  const auto rounds = planTrunkSurvey(nodes, {trunkLink("B", LinkDirection::kDown)}, everyLink);
  REQUIRE(rounds.size() == 1);
  std::set<std::string> from;
  for (const auto& [f, t] : rounds.front().flows) {
    CHECK(f != "b1");
    CHECK(t == "b1");
    from.insert(f);
  }
  CHECK(from == std::set<std::string>{"a1", "c1", "c2", "hnowd"});
  // Out of B: towards A's and C's nodes, one room after another.
  const auto out = planTrunkSurvey(nodes, {trunkLink("B", LinkDirection::kUp)}, everyLink);
  REQUIRE(out.size() == 1);
  REQUIRE(out.front().flows.size() >= 2);
  CHECK(out.front().flows[0].second.substr(0, 1) != out.front().flows[1].second.substr(0, 1));
  // A room with nobody on the far side is not measured.
  std::vector<SurveyNode> alone{{"hnowd", ""}, {"b1", "B"}};
  CHECK(planTrunkSurvey(alone, {trunkLink("B", LinkDirection::kDown)}, everyLink).empty());
}

TEST_CASE("flows that together read well under their ends measured the trunk - near their ends, a bound") {
  const auto rounds = planTrunkSurvey(twoRooms(), {trunkLink("B", LinkDirection::kDown)}, everyLink);
  REQUIRE(rounds.size() == 1);
  // Four flows at 25 Mbit/s each where each could carry 400: a 100 Mbit/s trunk.
  const SurveyFinding trunk = judgeTrunkRound(rounds[0], eachFlowAt(rounds[0], 25 * kMbps), everyLink);
  CHECK(trunk.link == trunkLink("B", LinkDirection::kDown));
  CHECK(trunk.saturated);
  CHECK(trunk.bytesPerSecond == doctest::Approx(100 * kMbps));
  // Each at 390 of 400: the trunk carried all of it and may carry more.
  const SurveyFinding open = judgeTrunkRound(rounds[0], eachFlowAt(rounds[0], 390 * kMbps), everyLink);
  CHECK_FALSE(open.saturated);
  CHECK(open.bytesPerSecond == doctest::Approx(4 * 390 * kMbps));
  // Ends not measured: nothing can be said of the trunk but a bound.
  auto unknown = [](const LinkId&) { return 0.0; };
  CHECK_FALSE(judgeTrunkRound(rounds[0], eachFlowAt(rounds[0], 25 * kMbps), unknown).saturated);
}

TEST_CASE("a sender with several flows has its uplink shared among them in what the ends carry") {
  std::vector<SurveyNode> nodes{{"hnowd", ""}, {"a1", "A"}, {"b1", "B"}, {"b2", "B"}, {"b3", "B"}, {"b4", "B"}};
  const auto rounds = planTrunkSurvey(nodes, {trunkLink("B", LinkDirection::kDown)}, everyLink);
  REQUIRE(rounds.size() == 1);
  REQUIRE(rounds[0].flows.size() == 4);  // a1 to each of b1..b4
  // a1's 400 shared four ways at 100 each: its uplink, not the trunk.
  CHECK_FALSE(judgeTrunkRound(rounds[0], eachFlowAt(rounds[0], 98 * kMbps), everyLink).saturated);
  CHECK(judgeTrunkRound(rounds[0], eachFlowAt(rounds[0], 12.5 * kMbps), everyLink).saturated);
}

namespace {

// Flows of a round through rooms on one core: each flow gets the least of
// its ends' shares and the shares of the trunks it crosses (in Mbit/s per
// room, both ways; 0 = unlimited), every link split equally among its flows.
RoundOutcome throughTrunks(const ProbeRound& round, const std::map<std::string, std::string>& roomOf,
                           const std::map<std::string, double>& trunkMbps) {
  std::map<std::string, int> out, in, sending, receiving;
  for (const auto& [from, to] : round.flows) {
    ++sending[from], ++receiving[to];
    if (roomOf.at(from) != roomOf.at(to)) ++out[roomOf.at(from)], ++in[roomOf.at(to)];
  }
  RoundOutcome outcome;
  for (const auto& [from, to] : round.flows) {
    double rate = std::min(400.0 / sending[from], 400.0 / receiving[to]);
    const double o = trunkMbps.at(roomOf.at(from)), i = trunkMbps.at(roomOf.at(to));
    if (o > 0) rate = std::min(rate, o / out[roomOf.at(from)]);
    if (i > 0) rate = std::min(rate, i / in[roomOf.at(to)]);
    outcome.flows.push_back({from, to, rate * kMbps});
  }
  return outcome;
}

std::vector<SurveyFinding> surveyed(const std::vector<SurveyNode>& nodes, const std::map<std::string, double>& trunks) {
  std::map<std::string, std::string> roomOf;
  for (const SurveyNode& n : nodes) roomOf[n.name] = n.site;
  const auto rounds = planTrunkSurvey(nodes, unmeasuredTrunks(nodes, everyLink), everyLink);
  std::vector<std::pair<ProbeRound, RoundOutcome>> judged;
  for (const ProbeRound& r : rounds) judged.emplace_back(r, throughTrunks(r, roomOf, trunks));
  return judgeTrunkSurvey(judged, roomOf, everyLink, [](const LinkId&) { return 0.0; });
}

const SurveyFinding& findingOf(const std::vector<SurveyFinding>& findings, const std::string& room, LinkDirection d) {
  for (const SurveyFinding& f : findings)
    if (f.link == trunkLink(room, d)) return f;
  FAIL("no finding for room " << room);
  return findings.front();
}

}  // namespace

TEST_CASE("a line of rooms: the middle room's wide trunk reads its neighbours' and is a bound, the end rooms' are measured") {
  // A -100- B -50- C, B's switch the router: 3 + 3 + 2 agents, hnowd in A.
  std::vector<SurveyNode> nodes{{"hnowd", "A"}};
  const char* rooms[] = {"A", "A", "A", "B", "B", "B", "C", "C"};
  for (int i = 0; i < 8; ++i) nodes.push_back({"n" + std::to_string(i + 1), rooms[i]});
  const auto findings = surveyed(nodes, {{"A", 100}, {"B", 0}, {"C", 50}});
  for (LinkDirection d : {LinkDirection::kDown, LinkDirection::kUp}) {
    CAPTURE(static_cast<int>(d));
    CHECK(findingOf(findings, "A", d).saturated);
    CHECK(findingOf(findings, "A", d).bytesPerSecond == doctest::Approx(100 * kMbps));
    CHECK(findingOf(findings, "C", d).saturated);
    CHECK(findingOf(findings, "C", d).bytesPerSecond == doctest::Approx(50 * kMbps));
    // Into B: A's 100 out plus C's 50 out, all they could send.
    CHECK_FALSE(findingOf(findings, "B", d).saturated);
    CHECK(findingOf(findings, "B", d).bytesPerSecond == doctest::Approx(150 * kMbps));
  }
  // One far room: the reading is the path's, both trunks keep it.
  const auto two = surveyed(twoRooms(), {{"A", 0}, {"B", 100}, {"", 0}});
  for (const char* room : {"A", "B"})
    for (LinkDirection d : {LinkDirection::kDown, LinkDirection::kUp}) CHECK(findingOf(two, room, d).saturated);
}

TEST_CASE("three rooms on a core, each trunk slower than its room: every trunk measured though the far side is two rooms") {
  std::vector<SurveyNode> nodes{{"hnowd", "X"}};
  const char* rooms[] = {"X", "X", "X", "Y", "Y", "Y", "Z", "Z", "Z"};
  for (int i = 0; i < 9; ++i) nodes.push_back({"n" + std::to_string(i + 1), rooms[i]});
  const auto findings = surveyed(nodes, {{"X", 100}, {"Y", 100}, {"Z", 100}});
  for (const char* room : {"X", "Y", "Z"})
    for (LinkDirection d : {LinkDirection::kDown, LinkDirection::kUp}) {
      CAPTURE(room);
      CHECK(findingOf(findings, room, d).saturated);
      CHECK(findingOf(findings, room, d).bytesPerSecond <= 100 * kMbps * 1.001);
    }
}

TEST_CASE("plans take a measured trunk at its capacity, one known only as a bound as unlimited, one not measured as 0") {
  hnow::ManualClock clock;
  LinkBook book(clock, {});
  book.applySurvey({{trunkLink("B", LinkDirection::kDown), 95 * kMbps, true, 0.0, 1, 0.0},
                    {trunkLink("B", LinkDirection::kUp), 150 * kMbps, false, 0.0, 1, 0.0}},
                   {trunkLink("B", LinkDirection::kDown), trunkLink("B", LinkDirection::kUp)}, false);
  const hnow::planner::Trunk b = knownTrunk(book, "B");
  CHECK(b.inBytesPerSecond == doctest::Approx(95 * kMbps));
  CHECK(b.limitsIn());
  CHECK_FALSE(b.limitsOut());  // at least 150: the survey could not fill it
  const hnow::planner::Trunk c = knownTrunk(book, "C");
  CHECK(c.inBytesPerSecond == 0.0);
  CHECK(c.outBytesPerSecond == 0.0);
}
