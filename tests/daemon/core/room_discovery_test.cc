// Rooms on one subnet by measurement (daemon/core/room_discovery.h): rounds
// of disjoint pairs; pairs at full speed share a switch, pairs held back
// crossed a shared link.
#include <doctest/doctest.h>

#include <set>

#include "core/room_discovery.h"

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

TEST_CASE("discovery rounds: each node sends once and receives once per round, 1, 2, 4 places on") {
  const auto rounds = planRoomDiscovery({"b2", "a1", "hnowd", "a2", "b1"});
  REQUIRE(rounds.size() == 3);  // shifts 1, 2, 4 over 5 nodes
  for (const ProbeRound& r : rounds) {
    std::set<std::string> from, to;
    for (const auto& [f, t] : r.flows) {
      CHECK(f != t);
      from.insert(f);
      to.insert(t);
    }
    CHECK(from.size() == 5);
    CHECK(to.size() == 5);
  }
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
