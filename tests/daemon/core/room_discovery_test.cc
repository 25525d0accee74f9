// Rooms on one subnet by measurement (daemon/core/links/room_discovery.h): rounds
// of disjoint pairs; pairs at full speed share a switch, pairs held back
// crossed a shared link.
#include <doctest/doctest.h>

#include <set>

#include "core/links/room_discovery.h"

using namespace hnow::daemon;

namespace {

constexpr double kMbps = 1e6 / 8;

double every400(const LinkId&) { return 400 * kMbps; }

// What a lab of two switches {a*} and {b*} joined by a 100 Mbit/s trunk
// gives each round: pairs on one switch 400, the pairs across split 100.
std::vector<RoundOutcome> twoSwitches(const std::vector<ProbeRound>& rounds) {
  std::vector<RoundOutcome> out;
  for (const ProbeRound& r : rounds) {
    int ab = 0, ba = 0;
    for (const auto& [from, to] : r.flows) {
      ab += from[0] != 'b' && to[0] == 'b';
      ba += from[0] == 'b' && to[0] != 'b';
    }
    RoundOutcome o;
    for (const auto& [from, to] : r.flows) {
      const bool across = (from[0] == 'b') != (to[0] == 'b');
      const int share = from[0] == 'b' ? ba : ab;
      o.flows.push_back({from, to, across ? 100 * kMbps / share : 400 * kMbps});
    }
    out.push_back(std::move(o));
  }
  return out;
}

}  // namespace

TEST_CASE("discovery rounds: each node sends and receives at most once a round, at most 4 pairs, every node 1, 2, 4 places on") {
  const auto rounds = planRoomDiscovery({"b2", "a1", "hnowd", "a2", "b1"});
  REQUIRE(rounds.size() == 6);  // shifts 1, 2, 4 over 5 nodes, 4 pairs and 1 each
  std::set<std::pair<std::string, std::string>> pairs;
  for (const ProbeRound& r : rounds) {
    CHECK(r.flows.size() <= 4);
    std::set<std::string> from, to;
    for (const auto& [f, t] : r.flows) {
      CHECK(f != t);
      from.insert(f);
      to.insert(t);
      pairs.insert({f, t});
    }
    CHECK(from.size() == r.flows.size());
    CHECK(to.size() == r.flows.size());
  }
  CHECK(pairs.size() == 15);
  CHECK(pairs.count({"a1", "a2"}) == 1);  // names in order: a1 a2 b1 b2 hnowd
  CHECK(pairs.count({"hnowd", "a1"}) == 1);
  CHECK(planRoomDiscovery({"a1", "a2"}).empty());
}

TEST_CASE("two switches on one subnet joined by a slow trunk: two rooms, hnowd in its switch's") {
  const std::vector<std::string> nodes{"a1", "a2", "a3", "a4", "b1", "b2", "b3", "b4", "hnowd"};
  const auto rounds = planRoomDiscovery(nodes);
  const DiscoveredRooms found = judgeRoomDiscovery(rounds, twoSwitches(rounds), every400);
  REQUIRE(found.roomOf.size() == nodes.size());
  CHECK(found.heldPairs > 0);
  for (const char* n : {"a2", "a3", "a4", "hnowd"}) CHECK(found.roomOf.at(n) == found.roomOf.at("a1"));
  for (const char* n : {"b2", "b3", "b4"}) CHECK(found.roomOf.at(n) == found.roomOf.at("b1"));
  CHECK(found.roomOf.at("a1") != found.roomOf.at("b1"));
  CHECK(found.roomOf.at("a1") == "switch-1");
}

TEST_CASE("one switch: every pair at full speed, no rooms") {
  const auto rounds = planRoomDiscovery({"a1", "a2", "a3", "a4"});
  std::vector<RoundOutcome> outcomes;
  for (const ProbeRound& r : rounds) {
    RoundOutcome o;
    for (const auto& [from, to] : r.flows) o.flows.push_back({from, to, 390 * kMbps});
    outcomes.push_back(o);
  }
  const DiscoveredRooms found = judgeRoomDiscovery(rounds, outcomes, every400);
  CHECK(found.roomOf.empty());
  CHECK(found.heldPairs == 0);
}

TEST_CASE("a pair held back inside what other pairs join as one room: the rounds contradict, no rooms") {
  const auto rounds = planRoomDiscovery({"a1", "a2", "a3", "a4"});
  std::vector<RoundOutcome> outcomes;
  for (const ProbeRound& r : rounds) {
    RoundOutcome o;
    for (const auto& [from, to] : r.flows)  // a1 -> a2 slow once, everything else fast
      o.flows.push_back({from, to, from == "a1" && to == "a2" ? 50 * kMbps : 390 * kMbps});
    outcomes.push_back(o);
  }
  CHECK(judgeRoomDiscovery(rounds, outcomes, every400).roomOf.empty());
}
