#include "agent/rate_probe.h"

#include <algorithm>
#include <optional>
#include <vector>

#include "agent/compute_calibration.h"
#include "agent/token_bucket.h"

namespace hnow::agent {

namespace {

using daemon::Duration;

kj::Duration toKj(Duration d) { return d.count() * kj::NANOSECONDS; }

// Median round trip of `left` sequential pings, appended to `rtts`.
kj::Promise<void> pingPong(ProbePeer& peer, const daemon::Clock& clock, int left,
                           std::vector<double>& rtts) {
  if (left == 0) return kj::READY_NOW;
  auto start = clock.now();
  return peer.ping().then([&peer, &clock, left, &rtts, start]() {
    rtts.push_back(daemon::seconds(clock.now() - start));
    return pingPong(peer, clock, left - 1, rtts);
  });
}

struct Transfer {
  bool upload;
  std::uint64_t total;
  std::uint32_t chunk;
  TokenBucket bucket;
  // Unpaced (a real link): no chunk is issued after this, so a probe of a
  // slow link lasts about as long as one of a fast link.
  std::optional<daemon::TimePoint> stopIssuingAt;
  std::uint64_t issued = 0;
  std::uint64_t completed = 0;
  daemon::TimePoint lastCompletion{};
};

// Chunks in flight at once. One lane waiting for each reply before pacing
// the next chunk would lose a round trip per chunk: at 200 Mbit/s with 1 MiB
// chunks a 10 ms round trip alone reads 20% slow. The bucket still paces
// every chunk, so the lanes together never exceed the emulated rate.
constexpr int kLanes = 4;

// One lane: takes the next chunk, waits until the bucket allows it, moves it,
// and repeats until every byte has been issued.
kj::Promise<void> lane(ProbePeer& peer, kj::Timer& timer, const daemon::Clock& clock, Transfer& t) {
  if (t.issued >= t.total) return kj::READY_NOW;
  if (t.stopIssuingAt && clock.now() >= *t.stopIssuingAt) return kj::READY_NOW;
  auto bytes = static_cast<std::uint32_t>(std::min<std::uint64_t>(t.chunk, t.total - t.issued));
  t.issued += bytes;
  Duration wait = t.bucket.take(bytes, clock.now());
  return timer.afterDelay(toKj(wait))
      .then([&peer, &t, bytes]() { return t.upload ? peer.upload(bytes) : peer.download(bytes); })
      .then([&peer, &timer, &clock, &t, bytes]() {
        t.completed += bytes;
        t.lastCompletion = clock.now();
        return lane(peer, timer, clock, t);
      });
}

kj::Promise<void> pump(ProbePeer& peer, kj::Timer& timer, const daemon::Clock& clock, Transfer& t) {
  auto lanes = kj::heapArrayBuilder<kj::Promise<void>>(kLanes);
  for (int i = 0; i < kLanes; ++i) lanes.add(lane(peer, timer, clock, t));
  return kj::joinPromises(lanes.finish());
}

// Bytes per second a timed transfer achieved.
kj::Promise<double> timedTransfer(ProbePeer& peer, kj::Timer& timer, const daemon::Clock& clock,
                                  bool upload, double limit, const ProbeSettings& settings) {
  std::uint64_t total = settings.unlimitedBytes;
  if (limit > 0)
    total = std::clamp<std::uint64_t>(
        static_cast<std::uint64_t>(limit * daemon::seconds(settings.transferTime)), 64u << 10,
        settings.unlimitedBytes);
  // Small chunks keep the pacing smooth at low rates and let a time-bounded
  // probe of a slow real link end close to its deadline; 1 MiB is the most
  // hnowd accepts.
  std::uint32_t chunk = limit > 0 && limit < 50e6 ? (64u << 10) : limit > 0 ? (1u << 20) : (256u << 10);
  auto start = clock.now();
  auto transfer = kj::heap<Transfer>(Transfer{upload, total, chunk, TokenBucket(limit, chunk, start), {}});
  auto& t = *transfer;
  // Paced probes move a fixed number of bytes; a real link is measured for
  // `transferTime` (a 32 MiB probe of a 50 Mbit/s uplink would take 5 s).
  if (limit <= 0) t.stopIssuingAt = start + settings.transferTime;
  // What the data plane moved on the same link meanwhile (unpaced only).
  const auto& concurrent = upload ? settings.dataSent : settings.dataReceived;
  const std::uint64_t before = limit <= 0 && concurrent ? concurrent() : 0;
  return pump(peer, timer, clock, t).then([&t, start, before, concurrent, limit]() {
    double elapsed = std::max(1e-9, daemon::seconds(t.lastCompletion - start));
    const std::uint64_t alongside = limit <= 0 && concurrent ? concurrent() - before : 0;
    return static_cast<double>(t.completed + alongside) / elapsed;
  }).attach(kj::mv(transfer));
}

}  // namespace

kj::Promise<planner::NodeRates> probeRates(ProbePeer& peer, kj::Timer& timer,
                                           const daemon::Clock& clock, ProbeSettings settings) {
  auto rates = kj::heap<planner::NodeRates>();
  auto rtts = kj::heap<std::vector<double>>();
  auto& r = *rates;
  auto& samples = *rtts;
  return pingPong(peer, clock, settings.pings, samples)
      .then([&r, &samples]() {
        std::sort(samples.begin(), samples.end());
        double median = samples.empty() ? 0.0 : samples[samples.size() / 2];
        // A round trip is a send and a receive at each end; one message's
        // fixed cost is split evenly between its sender and its receiver.
        r.sendOverheadSeconds = r.receiveOverheadSeconds = median / 4;
      })
      .then([&peer, &timer, &clock, settings]() {
        return timedTransfer(peer, timer, clock, true, settings.uplinkBytesPerSecond, settings);
      })
      .then([&peer, &timer, &clock, settings, &r](double uplink) {
        r.uplinkBytesPerSecond = uplink;
        return timedTransfer(peer, timer, clock, false, settings.downlinkBytesPerSecond, settings);
      })
      .then([&clock, settings, &r](double downlink) {
        r.downlinkBytesPerSecond = downlink;
        r.computeSecondsPerUnit = calibrateComputeSecondsPerUnit(clock, settings.computeFactor);
        return r;
      })
      .attach(kj::mv(rates), kj::mv(rtts));
}

}  // namespace hnow::agent
