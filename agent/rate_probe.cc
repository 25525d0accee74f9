#include "agent/rate_probe.h"

#include <algorithm>
#include <vector>

#include "agent/compute_calibration.h"

namespace hnow::agent {

namespace {

// Median round trip of `left` sequential pings, appended to `rtts`.
kj::Promise<void> pingPong(ProbePeer& peer, const hnow::Clock& clock, int left, std::vector<double>& rtts) {
  if (left == 0) return kj::READY_NOW;
  auto start = clock.now();
  return peer.ping().then([&peer, &clock, left, &rtts, start]() {
    rtts.push_back(hnow::seconds(clock.now() - start));
    return pingPong(peer, clock, left - 1, rtts);
  });
}

}  // namespace

kj::Promise<planner::NodeRates> probeRates(ProbePeer& peer, const hnow::Clock& clock, ProbeSettings settings) {
  auto rtts = kj::heap<std::vector<double>>();
  auto& samples = *rtts;
  return pingPong(peer, clock, settings.pings, samples)
      .then([&samples, &clock, settings]() {
        planner::NodeRates r;
        std::sort(samples.begin(), samples.end());
        const double median = samples.empty() ? 0.0 : samples[samples.size() / 2];
        // A round trip is a send and a receive at each end; one message's
        // fixed cost is split evenly between its sender and its receiver.
        r.sendOverheadSeconds = r.receiveOverheadSeconds = median / 4;
        r.computeSecondsPerUnit = calibrateComputeSecondsPerUnit(clock, settings.computeFactor);
        return r;
      })
      .attach(kj::mv(rtts));
}

}  // namespace hnow::agent
