// The agent's own probe (agent/rate_probe.h): overheads from a ping-pong,
// compute from a calibration; links are not its to measure.
#include <doctest/doctest.h>

#include <kj/async-io.h>

#include "agent/rate_probe.h"

using namespace hnow::agent;

namespace {

// Every ping takes `rtt` seconds on a real timer.
struct SlowPeer final : ProbePeer {
  SlowPeer(kj::Timer& t, double s) : timer(t), rtt(s) {}
  kj::Promise<void> ping() override {
    ++pings;
    return timer.afterDelay(static_cast<std::int64_t>(rtt * 1e9) * kj::NANOSECONDS);
  }
  kj::Timer& timer;
  double rtt;
  int pings = 0;
};

}  // namespace

TEST_CASE("a message's fixed overhead is a quarter of the median round trip, split between sender and receiver") {
  auto io = kj::setupAsyncIo();
  hnow::SteadyClock clock;
  SlowPeer peer(io.provider->getTimer(), 0.004);
  ProbeSettings settings;
  settings.pings = 5;
  auto rates = probeRates(peer, clock, settings).wait(io.waitScope);
  CHECK(peer.pings == 5);
  CHECK(rates.sendOverheadSeconds == doctest::Approx(0.001).epsilon(0.5));
  CHECK(rates.receiveOverheadSeconds == rates.sendOverheadSeconds);
  CHECK(rates.computeSecondsPerUnit > 0);
  CHECK(rates.uplinkBytesPerSecond == 0);  // hnowd's surveys measure the links
  CHECK(rates.downlinkBytesPerSecond == 0);
}

TEST_CASE("an emulated compute factor slows the calibrated compute rate") {
  auto io = kj::setupAsyncIo();
  hnow::SteadyClock clock;
  SlowPeer peer(io.provider->getTimer(), 0.0);
  ProbeSettings settings;
  settings.pings = 1;
  const double base = probeRates(peer, clock, settings).wait(io.waitScope).computeSecondsPerUnit;
  settings.computeFactor = 4;
  const double slowed = probeRates(peer, clock, settings).wait(io.waitScope).computeSecondsPerUnit;
  CHECK(slowed == doctest::Approx(4 * base).epsilon(0.5));
}
