#include <doctest/doctest.h>

#include "core/transfer_flows.h"

using namespace hnow;
using namespace hnow::daemon;
using namespace std::chrono_literals;

namespace {
constexpr std::uint64_t MiB = 1 << 20;
}

TEST_CASE("a copy's flow is its bytes over the window while its parent stays ahead - a copy waiting for its parent is not judged") {
  // Node 1 pulls from the source at 10 MiB/s; node 2 from node 1, right behind it.
  TransferFlows flows(3);
  TimePoint now{};
  for (int step = 0; step < 30; ++step) {
    now += 100ms;
    flows.held(now, 1, static_cast<std::uint64_t>(step + 1) * MiB);
    flows.held(now, 2, static_cast<std::uint64_t>(step) * MiB);
  }
  auto out = flows.flows(now, 2s, {-1, 0, 1}, {false, true, true}, {true, false, false});
  REQUIRE(out.size() == 1);
  CHECK(out[0].from == 0);
  CHECK(out[0].to == 1);
  CHECK(out[0].bytesPerSecond == doctest::Approx(10.0 * MiB).epsilon(0.06));
  // Once node 1 holds everything, node 2's flow is judged too.
  out = flows.flows(now, 2s, {-1, 0, 1}, {false, false, true}, {true, true, false});
  REQUIRE(out.size() == 1);
  CHECK(out[0].to == 2);
}

TEST_CASE("a copy moved to another parent within the window, or with too few reports, is not judged") {
  TransferFlows flows(2);
  TimePoint now{};
  for (int step = 0; step < 30; ++step) {
    now += 100ms;
    flows.held(now, 1, static_cast<std::uint64_t>(step) * MiB);
    if (step == 25) flows.moved(now, 1);
  }
  CHECK(flows.flows(now, 2s, {-1, 0}, {false, true}, {true, false}).empty());
  CHECK(flows.flows(now + 5s, 2s, {-1, 0}, {false, true}, {true, false}).empty());  // no report in the window
}
