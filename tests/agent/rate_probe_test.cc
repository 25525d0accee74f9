// The agent's probes (agent/rate_probe.h) against a peer that moves bytes at
// a known rate, on a real kj timer: an unpaced probe sharing its link with a
// transfer reports the link's capacity, not what the transfer left over.
#include <doctest/doctest.h>

#include <kj/async-io.h>

#include "agent/rate_probe.h"

using namespace hnow::agent;
using namespace std::chrono_literals;

namespace {

// Every upload or download of n bytes takes n / rate; while it runs, a
// transfer on the same link moves as many bytes again (a fair share).
struct SharedLinkPeer final : ProbePeer {
  SharedLinkPeer(kj::Timer& t, double r) : timer(t), rate(r) {}
  kj::Promise<void> ping() override { return kj::READY_NOW; }
  kj::Promise<void> upload(std::uint32_t bytes) override { return move(bytes, sent); }
  kj::Promise<void> download(std::uint32_t bytes) override { return move(bytes, received); }
  kj::Promise<void> move(std::uint32_t bytes, std::uint64_t& alongside) {
    alongside += bytes;
    return timer.afterDelay(static_cast<std::int64_t>(bytes / rate * 1e9) * kj::NANOSECONDS);
  }
  kj::Timer& timer;
  double rate;  // what the probe gets, bytes/s; the link carries twice that
  std::uint64_t sent = 0, received = 0;
};

ProbeSettings quick() {
  ProbeSettings s;
  s.transferTime = 200ms;
  s.pings = 1;
  return s;
}

}  // namespace

TEST_CASE("an unpaced probe adds what the data plane moved meanwhile: the link's capacity") {
  auto io = kj::setupAsyncIo();
  hnow::daemon::SteadyClock clock;
  // 4 lanes at 20 MB/s each: the probe alone reads 80 MB/s, the link carries 160.
  SharedLinkPeer peer(io.provider->getTimer(), 20e6);
  ProbeSettings settings = quick();
  settings.dataSent = [&peer]() { return peer.sent; };
  settings.dataReceived = [&peer]() { return peer.received; };
  auto rates = probeRates(peer, io.provider->getTimer(), clock, settings).wait(io.waitScope);
  CHECK(rates.uplinkBytesPerSecond == doctest::Approx(160e6).epsilon(0.25));
  CHECK(rates.downlinkBytesPerSecond == doctest::Approx(160e6).epsilon(0.25));

  SUBCASE("without a data plane it reads what it got alone") {
    SharedLinkPeer alone(io.provider->getTimer(), 20e6);
    auto bare = probeRates(alone, io.provider->getTimer(), clock, quick()).wait(io.waitScope);
    CHECK(bare.uplinkBytesPerSecond == doctest::Approx(80e6).epsilon(0.25));
  }
}

TEST_CASE("a paced probe is not corrected: its token bucket is not the data plane's") {
  auto io = kj::setupAsyncIo();
  hnow::daemon::SteadyClock clock;
  SharedLinkPeer peer(io.provider->getTimer(), 1e9);  // the pacing, not the peer, sets the rate
  ProbeSettings settings = quick();
  settings.uplinkBytesPerSecond = 5e6;
  settings.downlinkBytesPerSecond = 5e6;
  settings.dataSent = [&peer]() { return peer.sent; };
  settings.dataReceived = [&peer]() { return peer.received; };
  auto rates = probeRates(peer, io.provider->getTimer(), clock, settings).wait(io.waitScope);
  CHECK(rates.uplinkBytesPerSecond == doctest::Approx(5e6).epsilon(0.25));
}
