#include <doctest/doctest.h>

#include "core/links/rate_table.h"

using namespace hnow;
using namespace hnow::daemon;
using namespace std::chrono_literals;

namespace {

hnow::planner::NodeRates computing(double secondsPerUnit) {
  hnow::planner::NodeRates r;
  r.computeSecondsPerUnit = secondsPerUnit;
  return r;
}

hnow::planner::NodeRates uplink(double bytesPerSecond) {
  hnow::planner::NodeRates r;
  r.uplinkBytesPerSecond = bytesPerSecond;
  r.downlinkBytesPerSecond = 1e8;
  r.computeSecondsPerUnit = 0.01;
  return r;
}

int count(const std::vector<RateEvent>& events, RateEvent::Kind kind) {
  int n = 0;
  for (const auto& e : events) n += e.kind == kind;
  return n;
}

}  // namespace

TEST_CASE("an agent that misses heartbeats for longer than lostAfter is marked lost, then back") {
  ManualClock clock;
  RateTable table(clock, RateTableOptions{});
  table.registerAgent("a", "lab1");
  clock.advance(2400ms);  // lostAfter is 2.5 s by default
  CHECK(count(table.tick(), RateEvent::Kind::kLost) == 0);
  CHECK(table.heartbeat("a"));
  clock.advance(3100ms);
  auto events = table.tick();
  REQUIRE(count(events, RateEvent::Kind::kLost) == 1);
  CHECK(events[0].agent == "a");
  CHECK(table.find("a")->state == AgentState::kLost);
  CHECK(count(table.tick(), RateEvent::Kind::kLost) == 0);  // reported once
  table.heartbeat("a");
  CHECK(count(table.tick(), RateEvent::Kind::kBack) == 1);
  CHECK(table.find("a")->state == AgentState::kAlive);
}

TEST_CASE("hnowd's loop lag is excused: silence while hnowd read nothing is not the agents'") {
  ManualClock clock;
  RateTable table(clock, RateTableOptions{});
  table.registerAgent("a", "lab1");
  table.registerAgent("b", "lab1");
  clock.advance(1000ms);
  table.heartbeat("b");
  // hnowd's loop stalls 4 s: no heartbeat is read meanwhile.
  clock.advance(4000ms);
  table.excuse(4000ms);
  CHECK(count(table.tick(), RateEvent::Kind::kLost) == 0);
  CHECK(table.find("a")->lastHeard == clock.now() - 1000ms);
  CHECK(table.find("b")->lastHeard == clock.now());  // never later than now
  // Silent past lostAfter of hnowd's own running time: lost after all.
  clock.advance(1600ms);
  auto events = table.tick();
  REQUIRE(count(events, RateEvent::Kind::kLost) == 1);
  CHECK(events[0].agent == "a");
}

TEST_CASE("heartbeats and reports from an unregistered agent are refused") {
  ManualClock clock;
  RateTable table(clock, RateTableOptions{});
  CHECK_FALSE(table.heartbeat("ghost"));
  CHECK_FALSE(table.reportRates("ghost", uplink(1e6)));
  CHECK(table.snapshot().empty());
}

TEST_CASE("a compute rate change beyond the threshold is drift only after the dwell time") {
  ManualClock clock;
  RateTableOptions options;
  options.driftThreshold = 0.25;
  options.driftDwell = 2s;
  RateTable table(clock, options);
  table.registerAgent("a", "");
  table.reportRates("a", computing(0.010));
  CHECK(table.tick().empty());  // sets the baseline
  table.reportRates("a", computing(0.016));  // 37.5% slower
  CHECK(table.tick().empty());
  clock.advance(1500ms);
  table.heartbeat("a");
  CHECK(table.tick().empty());  // not yet for 2 s
  clock.advance(600ms);
  table.heartbeat("a");
  auto events = table.tick();
  REQUIRE(events.size() == 1);
  CHECK(events[0].kind == RateEvent::Kind::kDrift);
  CHECK(events[0].rate == "compute");
  CHECK(events[0].before == doctest::Approx(100.0));
  CHECK(events[0].after == doctest::Approx(62.5));
  clock.advance(3s);
  table.heartbeat("a");
  CHECK(table.tick().empty());  // the new rate is the new baseline
}

TEST_CASE("a blip shorter than the dwell time or within the threshold is not drift") {
  ManualClock clock;
  RateTable table(clock, RateTableOptions{});
  table.registerAgent("a", "");
  table.reportRates("a", computing(0.010));
  table.tick();
  table.reportRates("a", computing(0.020));
  table.tick();
  clock.advance(1s);
  table.reportRates("a", computing(0.010));  // recovered before the dwell
  CHECK(table.tick().empty());
  clock.advance(5s);
  table.reportRates("a", computing(0.0125));  // 20% slower < 25%
  CHECK(table.tick().empty());
  clock.advance(5s);
  table.heartbeat("a");
  CHECK(table.tick().empty());
}

TEST_CASE("a slower computation drifts like a slower link") {
  ManualClock clock;
  RateTable table(clock, RateTableOptions{});
  table.registerAgent("a", "");
  auto r = uplink(100e6);
  table.reportRates("a", r);
  table.tick();
  r.computeSecondsPerUnit = 0.02;  // half the speed
  table.reportRates("a", r);
  table.tick();
  clock.advance(3s);
  table.heartbeat("a");
  auto events = table.tick();
  REQUIRE(events.size() == 1);
  CHECK(events[0].rate == "compute");
}

TEST_CASE("re-registration keeps known rates and the site label is updated") {
  ManualClock clock;
  RateTable table(clock, RateTableOptions{});
  table.registerAgent("a", "room1");
  table.reportRates("a", uplink(10.0));
  table.registerAgent("a", "room2");
  REQUIRE(table.find("a") != nullptr);
  CHECK(table.find("a")->hasRates);
  CHECK(table.find("a")->site == "room2");
}
