#include <doctest/doctest.h>

#include "core/links/link_verdict.h"

using namespace hnow::daemon;

namespace {

KnownRate knownFrom(std::map<LinkId, double> known) {
  return [known](const LinkId& l) {
    auto it = known.find(l);
    return it == known.end() ? 0.0 : it->second;
  };
}

const LinkReading* readingOf(const std::vector<LinkReading>& r, const std::string& node, LinkDirection d) {
  for (const LinkReading& x : r)
    if (x.link == LinkId{node, d}) return &x;
  return nullptr;
}

// Rates in these cases are small numbers: any flow counts.
const VerdictOptions kAnyFlow{0.15, 0.0};

constexpr auto kUp = LinkDirection::kUp;
constexpr auto kDown = LinkDirection::kDown;

}  // namespace

TEST_CASE("a flow into a downlink with room is limited by its sender's uplink, and the other way round") {
  auto known = knownFrom({{{"s", kUp}, 100}, {{"r", kDown}, 400}});
  auto readings = judgeFlows({{"s", "r", 96}}, {{"s", {96, 0}}, {"r", {0, 96}}}, known, kAnyFlow);
  REQUIRE(readings.size() == 2);
  CHECK(readingOf(readings, "s", kUp)->saturated);
  CHECK(readingOf(readings, "s", kUp)->bytesPerSecond == 96);
  CHECK_FALSE(readingOf(readings, "r", kDown)->saturated);  // a share, not its capacity

  auto other = knownFrom({{{"s", kUp}, 400}, {{"r", kDown}, 100}});
  readings = judgeFlows({{"s", "r", 96}}, {{"s", {96, 0}}, {"r", {0, 96}}}, other, kAnyFlow);
  CHECK(readingOf(readings, "r", kDown)->saturated);
  CHECK_FALSE(readingOf(readings, "s", kUp)->saturated);
}

TEST_CASE("with nothing known of the other end a flow says nothing but what each link carried at least") {
  auto readings = judgeFlows({{"s", "r", 50}}, {{"s", {50, 0}}, {"r", {0, 50}}}, knownFrom({}), kAnyFlow);
  for (const LinkReading& r : readings) CHECK_FALSE(r.saturated);
  CHECK(readingOf(readings, "r", kDown)->bytesPerSecond == 50);
}

TEST_CASE("a link busy with other traffic is judged by all of it: a full downlink leaves its sender no verdict") {
  // r's 400 downlink carries 50 of hnow's and 350 of others': full, no room.
  auto known = knownFrom({{{"s", kUp}, 100}, {{"r", kDown}, 400}});
  auto readings = judgeFlows({{"s", "r", 50}}, {{"s", {50, 0}}, {"r", {0, 400, 0, 350}}}, known, kAnyFlow);
  CHECK_FALSE(readingOf(readings, "s", kUp)->saturated);
  // s had room (50 of 100): r's downlink was the limit, at 400 with others' 350.
  CHECK(readingOf(readings, "r", kDown)->saturated);
  CHECK(readingOf(readings, "r", kDown)->bytesPerSecond == 400);
  CHECK(readingOf(readings, "r", kDown)->foreign == 350);
}

TEST_CASE("when both ends seem to have room the side more flows point at is the limit - a tie is no verdict") {
  // A relay known at 100 sends 40 in all to three children with 400 downlinks:
  // its uplink slowed (one change), not three downlinks.
  auto known = knownFrom({{{"p", kUp}, 100}, {{"a", kDown}, 400}, {{"b", kDown}, 400}, {{"c", kDown}, 400}});
  std::map<std::string, NodeLoad> loads{{"p", {40, 0}}, {"a", {0, 13}}, {"b", {0, 13}}, {"c", {0, 14}}};
  auto readings = judgeFlows({{"p", "a", 13}, {"p", "b", 13}, {"p", "c", 14}}, loads, known, kAnyFlow);
  CHECK(readingOf(readings, "p", kUp)->saturated);
  CHECK(readingOf(readings, "p", kUp)->bytesPerSecond == 40);
  for (const char* child : {"a", "b", "c"}) CHECK_FALSE(readingOf(readings, child, kDown)->saturated);

  auto one = judgeFlows({{"p", "a", 13}}, {{"p", {13, 0}}, {"a", {0, 13}}}, known, kAnyFlow);
  for (const LinkReading& r : one) CHECK_FALSE(r.saturated);
}

TEST_CASE("flows too slow to mean anything are left out - a load never reads below its own flows") {
  auto known = knownFrom({{{"s", kUp}, 100}, {{"r", kDown}, 400}});
  CHECK(judgeFlows({{"s", "r", 1000}}, {{"s", {1000, 0}}, {"r", {0, 1000}}}, known).empty());
  auto readings = judgeFlows({{"s", "r", 90}}, {{"s", {80, 0}}, {"r", {0, 90}}}, known, kAnyFlow);
  CHECK(readingOf(readings, "s", kUp)->bytesPerSecond == 90);
}

TEST_CASE("a load counted at the interface is the link's, even under what its flows' receivers read") {
  // Four receivers each read 70 while their sockets held a backlog: 280 for
  // an uplink whose interface carried 190.
  auto known = knownFrom({{{"s", kUp}, 190}, {{"a", kDown}, 400}, {{"b", kDown}, 400}, {{"c", kDown}, 400}, {{"d", kDown}, 400}});
  std::vector<Flow> flows{{"s", "a", 70}, {"s", "b", 70}, {"s", "c", 70}, {"s", "d", 70}};
  std::map<std::string, NodeLoad> loads{{"s", {190, 0, 0, 0, true}}};
  for (const char* r : {"a", "b", "c", "d"}) loads[r] = {0, 70, 0, 0, true};
  auto readings = judgeFlows(flows, loads, known, kAnyFlow);
  REQUIRE(readingOf(readings, "s", kUp));
  CHECK(readingOf(readings, "s", kUp)->saturated);
  CHECK(readingOf(readings, "s", kUp)->bytesPerSecond == 190);
  loads["s"].atInterface = false;  // hnow's counters: at least what its flows moved
  CHECK(readingOf(judgeFlows(flows, loads, known, kAnyFlow), "s", kUp)->bytesPerSecond == 280);
}

TEST_CASE("a link one of whose flows starved for data is no flow's limit - it gets a bound, not a capacity") {
  // A relay of two stripes, known at 100, carried 90: one stripe's child far
  // behind it (60), the other's right behind it (30: the relay waited for
  // that stripe's own data).
  auto known = knownFrom({{{"p", kUp}, 100}, {{"a", kDown}, 400}, {{"b", kDown}, 400}});
  std::map<std::string, NodeLoad> loads{{"p", {90, 0}}, {"a", {0, 60}}, {"b", {0, 30}}};
  std::vector<Flow> flows{{"p", "a", 60}, {"p", "b", 30, false, true}};
  auto readings = judgeFlows(flows, loads, known, kAnyFlow);
  REQUIRE(readingOf(readings, "p", kUp));
  CHECK_FALSE(readingOf(readings, "p", kUp)->saturated);
  CHECK(readingOf(readings, "p", kUp)->bytesPerSecond == 90);  // at least that
  CHECK_FALSE(readingOf(readings, "b", kDown));                 // a starved flow is not judged
  // Not judged but not starved (its parent a few MiB ahead): it says nothing either way.
  flows[1].starved = false;
  readings = judgeFlows(flows, loads, known, kAnyFlow);
  CHECK(readingOf(readings, "p", kUp)->saturated);
  CHECK(readingOf(readings, "p", kUp)->bytesPerSecond == 90);
  // Both fed: the uplink was the limit, at its whole load.
  flows[1].fed = true;
  readings = judgeFlows(flows, loads, known, kAnyFlow);
  CHECK(readingOf(readings, "p", kUp)->saturated);
  CHECK(readingOf(readings, "p", kUp)->bytesPerSecond == 90);
}

TEST_CASE("a downlink fed by several parents is no limit while one of them starved it") {
  // a's downlink, known at 80, carries 78 from two parents with room: fed,
  // it was the limit. One of them waited for its own data: a gap in the
  // window may have left it idle, so it is only a bound.
  auto known = knownFrom({{{"p", kUp}, 400}, {{"q", kUp}, 400}, {{"a", kDown}, 80}});
  std::map<std::string, NodeLoad> loads{{"p", {60, 0}}, {"q", {18, 0}}, {"a", {0, 78}}};
  auto readings = judgeFlows({{"p", "a", 60}, {"q", "a", 18, false, true}}, loads, known, kAnyFlow);
  REQUIRE(readingOf(readings, "a", kDown));
  CHECK_FALSE(readingOf(readings, "a", kDown)->saturated);
  auto fed = judgeFlows({{"p", "a", 60}, {"q", "a", 18}}, loads, known, kAnyFlow);
  CHECK(readingOf(fed, "a", kDown)->saturated);
}
