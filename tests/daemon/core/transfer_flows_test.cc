#include <doctest/doctest.h>

#include "core/links/transfer_flows.h"

using namespace hnow;
using namespace hnow::daemon;
using namespace std::chrono_literals;

namespace {
constexpr std::uint64_t MiB = 1 << 20;

// Three seconds of reports, every 100 ms: node 1 pulls from the source at
// 10 MiB/s, node 2 from node 1, `behind` MiB behind it. Returns the last report's time.
TimePoint relayChain(TransferFlows& flows, std::uint64_t behind) {
  TimePoint now{};
  for (int step = 0; step < 30; ++step) {
    now += 100ms;
    flows.held(now, 1, static_cast<std::uint64_t>(step + behind) * MiB);
    flows.held(now, 2, static_cast<std::uint64_t>(step) * MiB);
  }
  return now;
}

}  // namespace

TEST_CASE("a copy's flow is its bytes over the window while its parent stays ahead - a copy waiting for its parent is unfed") {
  // Node 2 right behind node 1.
  TransferFlows flows(3);
  const TimePoint now = relayChain(flows, 1);
  auto out = flows.flows(now, 2s, {-1, 0, 1}, {false, true, true}, {true, false, false});
  REQUIRE(out.size() == 2);
  CHECK(out[0].from == 0);
  CHECK(out[0].to == 1);
  CHECK(out[0].fed);
  CHECK(out[0].bytesPerSecond == doctest::Approx(10.0 * MiB).epsilon(0.06));
  // Node 2 trails node 1 by a MiB: node 1 had nothing more to send it.
  CHECK(out[1].from == 1);
  CHECK(out[1].to == 2);
  CHECK_FALSE(out[1].fed);
  CHECK(out[1].starved);
  CHECK_FALSE(out[0].starved);  // the source holds everything
  // Once node 1 holds everything, node 2's flow is fed too.
  out = flows.flows(now, 2s, {-1, 0, 1}, {false, false, true}, {true, true, false});
  REQUIRE(out.size() == 1);
  CHECK(out[0].to == 2);
  CHECK(out[0].fed);
}

TEST_CASE("a copy moved to another parent within the window, or with too few reports, is unfed") {
  TransferFlows flows(2);
  TimePoint now{};
  for (int step = 0; step < 30; ++step) {
    now += 100ms;
    flows.held(now, 1, static_cast<std::uint64_t>(step) * MiB);
    if (step == 25) flows.moved(now, 1);
  }
  auto moved = flows.flows(now, 2s, {-1, 0}, {false, true}, {true, false});
  REQUIRE(moved.size() == 1);
  CHECK_FALSE(moved[0].fed);
  auto silent = flows.flows(now + 5s, 2s, {-1, 0}, {false, true}, {true, false});  // no report in the window
  REQUIRE(silent.size() == 1);
  CHECK_FALSE(silent[0].fed);
  CHECK_FALSE(silent[0].starved);  // nothing known either way
  CHECK(silent[0].bytesPerSecond == 0.0);
  // A copy that is not receiving (done, or failed) has no flow at all.
  CHECK(flows.flows(now, 2s, {-1, 0}, {false, false}, {true, false}).empty());
}

TEST_CASE("a copy 2 to 6 MiB behind its parent is not judged, yet not starved: the parent may still have kept it busy") {
  TransferFlows flows(3);
  const TimePoint now = relayChain(flows, 4);
  auto out = flows.flows(now, 2s, {-1, 0, 1}, {false, true, true}, {true, false, false});
  REQUIRE(out.size() == 2);
  CHECK_FALSE(out[1].fed);
  CHECK_FALSE(out[1].starved);
}
