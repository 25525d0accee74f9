#include "core/node_loads.h"

#include <algorithm>
#include <cmath>

namespace hnow::daemon {

namespace {

constexpr double kPayloadPerWire = 1448.0 / 1514.0;

// hnow's wire traffic an interval needs for its ratio to tell (bytes/s),
// and how long it must be: the interface counts what leaves after the
// queue, TCP what enters it, and a queue's swing must not count.
constexpr double kScaleFloor = 2e6;
constexpr double kScaleSpanSeconds = 2.0;

double perSecond(std::uint64_t earlier, std::uint64_t later, double seconds) {
  return later >= earlier ? static_cast<double>(later - earlier) / seconds : 0.0;
}

// The interface's bytes per hnow wire byte of one direction, kept if lower.
// No interface counts more than TCP_INFO's full headers (a node whose other
// traffic never stops keeps 1, as if not scaled); a veth's GSO packets about
// 0.96.
void lower(double& scale, bool& seen, double nic, double wire) {
  if (wire < kScaleFloor) return;
  const double ratio = std::clamp(nic / wire, 0.9, 1.0);
  scale = seen ? std::min(scale, ratio) : ratio;
  seen = true;
}

}  // namespace

NodeLoad loadBetween(const CounterSample& a, const CounterSample& b, const WireScale& scale) {
  NodeLoad load;
  const double dt = b.atSeconds - a.atSeconds;
  if (!(dt > 0)) return load;
  load.sent = perSecond(a.tcpSent, b.tcpSent, dt);
  load.received = perSecond(a.dataReceived, b.dataReceived, dt);
  if (a.nicKnown && b.nicKnown) {
    // What hnow's connections put on the wire, headers and ACKs included,
    // is subtracted: the rest is somebody else's.
    const double nicSent = perSecond(a.nicSent, b.nicSent, dt), nicReceived = perSecond(a.nicReceived, b.nicReceived, dt);
    const double wireSent = perSecond(a.wireSent, b.wireSent, dt), wireReceived = perSecond(a.wireReceived, b.wireReceived, dt);
    load.foreignSent = std::max(0.0, nicSent - scale.sent * wireSent) * kPayloadPerWire / scale.sent;
    load.foreignReceived = std::max(0.0, nicReceived - scale.received * wireReceived) * kPayloadPerWire / scale.received;
    load.sent += load.foreignSent;
    load.received += load.foreignReceived;
  }
  return load;
}

void NodeLoads::add(const std::string& node, TimePoint arrived, const CounterSample& sample) {
  auto& list = samples_[node];
  if (!list.empty()) {
    const CounterSample& last = list.back().sample;
    if (sample.atSeconds <= last.atSeconds || sample.tcpSent < last.tcpSent || sample.dataReceived < last.dataReceived)
      list.clear();
  }
  // The latest sample at least kScaleSpanSeconds older than this one.
  const CounterSample* span = nullptr;
  for (const Stamped& s : list)
    if (sample.atSeconds - s.sample.atSeconds >= kScaleSpanSeconds) span = &s.sample;
  if (span && span->nicKnown && sample.nicKnown) {
    const double dt = sample.atSeconds - span->atSeconds;
    Scale& s = scales_[node];
    lower(s.scale.sent, s.sentSeen, perSecond(span->nicSent, sample.nicSent, dt),
          perSecond(span->wireSent, sample.wireSent, dt));
    lower(s.scale.received, s.receivedSeen, perSecond(span->nicReceived, sample.nicReceived, dt),
          perSecond(span->wireReceived, sample.wireReceived, dt));
  }
  list.push_back({arrived, sample});
  while (!list.empty() && arrived - list.front().arrived > kKeep) list.pop_front();
}

std::optional<NodeLoad> NodeLoads::over(const std::string& node, TimePoint from, TimePoint to) const {
  auto it = samples_.find(node);
  if (it == samples_.end() || it->second.size() < 2) return std::nullopt;
  const auto& list = it->second;
  auto nearest = [&](TimePoint t) {
    return std::min_element(list.begin(), list.end(), [t](const Stamped& a, const Stamped& b) {
      return std::abs((a.arrived - t).count()) < std::abs((b.arrived - t).count());
    });
  };
  auto a = nearest(from), b = nearest(to);
  if (a >= b || b->arrived - a->arrived < (to - from) / 2) return std::nullopt;
  return loadBetween(a->sample, b->sample, scaleOf(node));
}

WireScale NodeLoads::scaleOf(const std::string& node) const {
  auto it = scales_.find(node);
  return it == scales_.end() ? WireScale{} : it->second.scale;
}

std::optional<NodeLoad> NodeLoads::latest(const std::string& node) const {
  auto it = samples_.find(node);
  if (it == samples_.end() || it->second.size() < 2) return std::nullopt;
  const auto& list = it->second;
  return loadBetween(list[list.size() - 2].sample, list.back().sample, scaleOf(node));
}

std::vector<std::string> NodeLoads::nodes() const {
  std::vector<std::string> out;
  for (const auto& [name, list] : samples_) out.push_back(name);
  return out;
}

}  // namespace hnow::daemon
