#pragma once
// What each node's data plane and network interface carried, from the
// counters agents send with every heartbeat (and hnowd's own), turned into
// the loads of an observation window (link_verdict.h). A node's counters
// are differenced on its own clock, so clocks need not agree.
#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <string>

#include "base/clock.h"
#include "core/links/link_verdict.h"

namespace hnow::daemon {

// Cumulative since the node's data plane started (transport/data/link_counters.h).
struct CounterSample {
  double atSeconds = 0.0;  // the node's own steady clock
  std::uint64_t dataSent = 0, dataReceived = 0;  // hnow's payload handed to and taken from its sockets
  std::uint64_t tcpSent = 0, tcpReceived = 0;    // hnow's payload acknowledged by peers, and received
  bool nicKnown = false;
  std::uint64_t nicSent = 0, nicReceived = 0;    // everything through the interface: bytes
  std::uint64_t nicSentPackets = 0, nicReceivedPackets = 0;  // and packets
};

// Payload bytes/s between two samples of one node. Where its interface's
// counters are known, the payload the interface carried, hnow's and
// others' (other traffic: beyond hnow's). That payload is the interface's
// bytes less one set of headers per packet (kHeaderBytesPerPacket): a NIC
// counts every frame, a veth whole GSO packets of up to 64 KiB with their
// headers once, and both hold as many headers as packets. Otherwise hnow's
// alone: what its connections' peers acknowledged (a chunk queued on a
// socket is not yet on the link: a new connection queues a whole window at
// once) and what it took from its sockets (what an emulated downlink paces).
NodeLoad loadBetween(const CounterSample& earlier, const CounterSample& later);
// Ethernet, IPv4 and TCP with timestamps (Linux's default): 14 + 20 + 32.
constexpr double kHeaderBytesPerPacket = 66.0;

class NodeLoads {
 public:
  // A sample as it arrived at hnowd; out-of-order or restarted counters
  // (a restarted agent) drop what came before.
  void add(const std::string& node, TimePoint arrived, const CounterSample& sample);
  // The load over [from, to] by hnowd's clock, from the samples nearest its
  // ends; none without two samples spanning at least half of it.
  std::optional<NodeLoad> over(const std::string& node, TimePoint from, TimePoint to) const;
  // The load between the node's last two samples: what it carries now.
  std::optional<NodeLoad> latest(const std::string& node) const;
  std::vector<std::string> nodes() const;
  void forget(const std::string& node) { samples_.erase(node); }

 private:
  struct Stamped {
    TimePoint arrived;
    CounterSample sample;
  };
  // Samples older than this are of no window hnowd asks about.
  static constexpr Duration kKeep = std::chrono::seconds(10);
  std::map<std::string, std::deque<Stamped>> samples_;
};

}  // namespace hnow::daemon
