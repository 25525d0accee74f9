// The rate of a probe flow fitted to its arrivals (flow_slope.h).
#include <doctest/doctest.h>

#include <cmath>
#include <initializer_list>

#include "transport/data/flow_slope.h"

using hnow::transport::data::FlowSlope;

namespace {
constexpr double kChunk = 128.0 * 1024;

// A paced flow: a whole chunk every `period` seconds, the first `phase`
// after the window opened.
FlowSlope staircase(double period, double phase, double window) {
  FlowSlope s;
  double bytes = 0;
  for (double t = phase; t < window; t += period) s.add(t, bytes += kChunk);
  return s;
}
}  // namespace

TEST_CASE("a flow paced a chunk at a time reads its rate whatever the chunks' phase against the window - a count is a chunk off") {
  const double period = 0.157, window = 0.6, rate = kChunk / period;
  for (double phase : {0.001, 0.04, 0.08, 0.12, 0.156}) {
    INFO("phase " << phase);
    FlowSlope s = staircase(period, phase, window);
    const double counted = static_cast<double>(s.arrivals()) * kChunk / window;  // 4.7% high or 21% low
    REQUIRE(s.fit(window));
    CHECK(*s.fit(window) == doctest::Approx(rate).epsilon(1e-9));
    CHECK(std::abs(counted - rate) > 0.04 * rate);
  }
  // What a count between the window's ends reads for the same flow: a
  // chunk apart by phase alone, one reading 21% low.
  const double early = static_cast<double>(staircase(period, 0.001, window).arrivals()) * kChunk / window;
  const double late = static_cast<double>(staircase(period, 0.156, window).arrivals()) * kChunk / window;
  CHECK(early - late == doctest::Approx(kChunk / window));
  CHECK(late < 0.8 * rate);
}

TEST_CASE("a smooth flow reads the same fitted as counted") {
  FlowSlope s;
  for (int i = 1; i <= 600; ++i) s.add(i * 0.001, i * 1000.0);
  CHECK(s.fit(0.6).value_or(0) == doctest::Approx(1e6).epsilon(1e-6));
}

TEST_CASE("a flow with too few arrivals, or one that stopped early in the window, is not fitted: its count stands") {
  CHECK_FALSE(FlowSlope{}.fit(0.6));
  FlowSlope two;
  two.add(0.1, kChunk);
  two.add(0.5, 2 * kChunk);
  CHECK_FALSE(two.fit(0.6));
  // Fast, then nothing for the last two thirds: it carried what it carried.
  FlowSlope stalled;
  for (int i = 1; i <= 10; ++i) stalled.add(i * 0.02, i * kChunk);
  CHECK_FALSE(stalled.fit(0.6));
  // A window of no length fits nothing.
  CHECK_FALSE(staircase(0.1, 0.01, 0.6).fit(0));
  CHECK(staircase(0.1, 0.01, 0.6).fit(0.6));
}
