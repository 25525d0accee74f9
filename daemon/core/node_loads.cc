#include "core/node_loads.h"

#include <algorithm>
#include <cmath>

namespace hnow::daemon {

namespace {

constexpr double kPayloadPerWire = 1448.0 / 1514.0;

double perSecond(std::uint64_t earlier, std::uint64_t later, double seconds) {
  return later >= earlier ? static_cast<double>(later - earlier) / seconds : 0.0;
}

}  // namespace

NodeLoad loadBetween(const CounterSample& a, const CounterSample& b) {
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
    load.foreignSent = std::max(0.0, nicSent - wireSent) * kPayloadPerWire;
    load.foreignReceived = std::max(0.0, nicReceived - wireReceived) * kPayloadPerWire;
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
  return loadBetween(a->sample, b->sample);
}

std::optional<NodeLoad> NodeLoads::latest(const std::string& node) const {
  auto it = samples_.find(node);
  if (it == samples_.end() || it->second.size() < 2) return std::nullopt;
  const auto& list = it->second;
  return loadBetween(list[list.size() - 2].sample, list.back().sample);
}

std::vector<std::string> NodeLoads::nodes() const {
  std::vector<std::string> out;
  for (const auto& [name, list] : samples_) out.push_back(name);
  return out;
}

}  // namespace hnow::daemon
