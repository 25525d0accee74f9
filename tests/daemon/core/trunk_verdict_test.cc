// What hnow's own flows say of trunks (daemon/core/links/trunk_verdict.h): flows
// between rooms held with room at both ends measured the trunk and blame
// no end; a flow an end explains leaves the trunk a bound.
#include <doctest/doctest.h>

#include "core/links/trunk_survey.h"
#include "core/links/trunk_verdict.h"

using namespace hnow::daemon;

namespace {

constexpr double kMbps = 1e6 / 8;

const std::map<std::string, std::string> kRooms{{"a1", "A"}, {"a2", "A"}, {"a3", "A"},
                                                {"b1", "B"}, {"b2", "B"}, {"b3", "B"}};

double every400(const LinkId& link) { return trunkRoom(link) ? 0.0 : 400 * kMbps; }

const LinkReading* readingOf(const TrunkVerdict& v, const LinkId& link) {
  for (const LinkReading& r : v.readings)
    if (r.link == link) return &r;
  return nullptr;
}

}  // namespace

TEST_CASE("a chain crossing a trunk three times: flows at a third of it with room at both ends measure the trunk") {
  // hnowd > b1 > a1 > b2 > a2 > b3: three flows into B at 33 Mbit/s, two out of it.
  std::vector<Flow> flows{{"hnowd", "b1", 33 * kMbps}, {"b1", "a1", 50 * kMbps}, {"a1", "b2", 33 * kMbps},
                          {"b2", "a2", 50 * kMbps},    {"a2", "b3", 33 * kMbps}};
  const TrunkVerdict v = judgeTrunks(flows, {}, kRooms, every400);
  const LinkReading* intoB = readingOf(v, trunkLink("B", LinkDirection::kDown));
  REQUIRE(intoB);
  CHECK(intoB->saturated);
  CHECK(intoB->bytesPerSecond == doctest::Approx(99 * kMbps));
  const LinkReading* outOfB = readingOf(v, trunkLink("B", LinkDirection::kUp));
  REQUIRE(outOfB);
  CHECK(outOfB->saturated);
  CHECK(outOfB->bytesPerSecond == doctest::Approx(100 * kMbps));
  // hnowd is in no room: its flow crosses B's trunk only.
  CHECK_FALSE(readingOf(v, trunkLink("", LinkDirection::kUp)));
  // No end link is blamed for any of them.
  CHECK(v.rest.empty());
}

TEST_CASE("a flow an end link explains leaves the trunk a bound, and is judged as before") {
  // b1's downlink of 40 Mbit/s held the one flow into B.
  auto known = [](const LinkId& link) {
    if (trunkRoom(link)) return 0.0;
    return link.node == "b1" && link.direction == LinkDirection::kDown ? 40 * kMbps : 400 * kMbps;
  };
  std::vector<Flow> flows{{"a1", "b1", 39 * kMbps}};
  const TrunkVerdict v = judgeTrunks(flows, {}, kRooms, known);
  const LinkReading* intoB = readingOf(v, trunkLink("B", LinkDirection::kDown));
  REQUIRE(intoB);
  CHECK_FALSE(intoB->saturated);
  CHECK(intoB->bytesPerSecond == doctest::Approx(39 * kMbps));
  CHECK(v.rest.size() == 1);
}

TEST_CASE("flows inside a room cross no trunk, and flows that waited for data say nothing of one") {
  std::vector<Flow> inside{{"a1", "a2", 30 * kMbps}, {"b1", "b2", 30 * kMbps}};
  const TrunkVerdict v = judgeTrunks(inside, {}, kRooms, every400);
  CHECK(v.readings.empty());
  CHECK(v.rest.size() == 2);
  Flow starved{"a1", "b1", 30 * kMbps};
  starved.starved = true;
  const TrunkVerdict w = judgeTrunks({starved}, {}, kRooms, every400);
  REQUIRE(w.readings.size() == 2);
  for (const LinkReading& r : w.readings) CHECK_FALSE(r.saturated);
  CHECK(w.rest.size() == 1);
}

TEST_CASE("without rooms every flow is left to the end links") {
  std::vector<Flow> flows{{"a1", "b1", 30 * kMbps}};
  const TrunkVerdict v = judgeTrunks(flows, {}, {}, every400);
  CHECK(v.readings.empty());
  CHECK(v.rest.size() == 1);
}

TEST_CASE("flows into two rooms that share the trunk out of a third: that trunk held them, not theirs in") {
  // A's trunk out (100) carries a flow into B and one into C, 48 each.
  const std::map<std::string, std::string> rooms{{"a1", "A"}, {"a2", "A"}, {"b1", "B"}, {"c1", "C"}};
  std::vector<Flow> flows{{"a1", "b1", 48 * kMbps}, {"a2", "c1", 48 * kMbps}};
  for (bool knownBefore : {false, true}) {
    CAPTURE(knownBefore);
    auto known = [&](const LinkId& link) {
      if (!trunkRoom(link)) return 400 * kMbps;
      return knownBefore ? 100 * kMbps : 0.0;  // every trunk measured at 100, or none yet
    };
    const TrunkVerdict v = judgeTrunks(flows, {}, rooms, known);
    const LinkReading* outOfA = readingOf(v, trunkLink("A", LinkDirection::kUp));
    REQUIRE(outOfA);
    CHECK(outOfA->saturated);
    CHECK(outOfA->bytesPerSecond == doctest::Approx(96 * kMbps));
    for (const char* room : {"B", "C"}) {
      const LinkReading* in = readingOf(v, trunkLink(room, LinkDirection::kDown));
      REQUIRE(in);
      CHECK_FALSE(in->saturated);
    }
  }
}

TEST_CASE("the last flow out of a fast room into a slow one: the slow room's known, full trunk held it, not the fast one's out") {
  const std::map<std::string, std::string> rooms{{"b1", "B"}, {"c1", "C"}};
  auto known = [](const LinkId& link) {
    if (!trunkRoom(link)) return 400 * kMbps;
    return link.node == "room:C" ? 48 * kMbps : 144 * kMbps;
  };
  const TrunkVerdict v = judgeTrunks({{"b1", "c1", 47.8 * kMbps}}, {}, rooms, known);
  const LinkReading* outOfB = readingOf(v, trunkLink("B", LinkDirection::kUp));
  REQUIRE(outOfB);
  CHECK_FALSE(outOfB->saturated);
  const LinkReading* intoC = readingOf(v, trunkLink("C", LinkDirection::kDown));
  REQUIRE(intoC);
  CHECK(intoC->saturated);  // B's trunk out had room: C's own held the flow (it confirms its 48)
  // The link between them slows to 20: both known trunks had room, both read it.
  const TrunkVerdict slower = judgeTrunks({{"b1", "c1", 20 * kMbps}}, {}, rooms, known);
  CHECK(readingOf(slower, trunkLink("B", LinkDirection::kUp))->saturated);
  CHECK(readingOf(slower, trunkLink("C", LinkDirection::kDown))->saturated);
}
