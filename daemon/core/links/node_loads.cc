#include "core/links/node_loads.h"

#include <algorithm>
#include <cmath>

namespace hnow::daemon {

namespace {

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
  // Interface counters without packet counts (an agent that does not send
  // them) cannot tell headers from payload: hnow's traffic alone then.
  const bool packets = b.nicSentPackets > 0 || b.nicReceivedPackets > 0;
  if (!a.nicKnown || !b.nicKnown || !packets) return load;
  // The payload the interface carried is the link's load, hnow's and
  // others': it counts after the qdisc, what the link took. Acknowledgements
  // lag it by what is in flight, which a window of 0.4 s sees change by up
  // to 2 MiB per child (40 Mbit/s). Pure ACKs are headers alone.
  auto payload = [&](std::uint64_t bytesA, std::uint64_t bytesB, std::uint64_t packetsA, std::uint64_t packetsB) {
    return std::max(0.0, perSecond(bytesA, bytesB, dt) - kHeaderBytesPerPacket * perSecond(packetsA, packetsB, dt));
  };
  const double nicSent = payload(a.nicSent, b.nicSent, a.nicSentPackets, b.nicSentPackets);
  const double nicReceived = payload(a.nicReceived, b.nicReceived, a.nicReceivedPackets, b.nicReceivedPackets);
  load.foreignSent = std::max(0.0, nicSent - perSecond(a.tcpSent, b.tcpSent, dt));
  load.foreignReceived = std::max(0.0, nicReceived - perSecond(a.tcpReceived, b.tcpReceived, dt));
  load.sent = nicSent;
  load.received = nicReceived;
  load.atInterface = true;
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
