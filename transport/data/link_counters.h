#pragma once
// What this process's data plane, and the network interface it uses, have
// carried since the start (hnowd differences two samples: node_loads.h).
// hnow's own bytes come from each connection's TCP_INFO: the payload its
// peers acknowledged or it received (a chunk handed to the socket is not yet
// on the link: a new connection queues a whole window at once). The
// interface's bytes and packets tell the payload it carried, hnow's or not.
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <utility>

namespace hnow::transport::data {

struct LinkCounters {
  double atSeconds = 0.0;  // the plane's clock
  std::uint64_t dataSent = 0, dataReceived = 0;  // DATA payload handed to and taken from the sockets
  std::uint64_t tcpSent = 0, tcpReceived = 0;    // payload acknowledged by peers, and received (TCP_INFO)
  bool nicKnown = false;                         // the interface below was found
  std::uint64_t nicSent = 0, nicReceived = 0;    // everything through it, hnow's or not: bytes
  std::uint64_t nicSentPackets = 0, nicReceivedPackets = 0;  // and packets
};

// The interface that carries the local address `host` (numeric IPv4 or
// IPv6), "" when none does or when it is a loopback interface: loopback is
// shared by every process of the machine, its counters say nothing of one
// node's link.
std::string interfaceOf(const std::string& host);
struct InterfaceCounters {
  std::uint64_t txBytes = 0, rxBytes = 0, txPackets = 0, rxPackets = 0;
};
// What `interface` carried (sysfs); none when unreadable.
std::optional<InterfaceCounters> interfaceCounters(const std::string& interface);

struct WireBytes {
  std::uint64_t acked = 0;     // payload the peer acknowledged
  std::uint64_t received = 0;  // payload received
};

// A node's counters now: the DATA payload its plane moved, its connections'
// bytes, and its interface's when it has one ("": none).
LinkCounters countersOf(double atSeconds, std::uint64_t dataSent, std::uint64_t dataReceived, const WireBytes& wire,
                        const std::string& interface);
// A TCP socket's payload so far (TCP_INFO); none when `fd` is not a TCP
// socket.
std::optional<WireBytes> wireBytesOf(int fd);

class TcpStream;

// The wire bytes of every connection of one plane, the closed ones' kept:
// each TcpStream given the tally adds what its socket carried since it last
// did, when sampled and once more as it closes. Data thread only.
class WireTally {
 public:
  void attach(TcpStream* stream) { streams_.insert(stream); }
  void detach(TcpStream* stream) { streams_.erase(stream); }
  void add(const WireBytes& more) {
    total_.acked += more.acked;
    total_.received += more.received;
  }
  // Samples every open connection first.
  WireBytes total();

 private:
  std::set<TcpStream*> streams_;
  WireBytes total_;
};

}  // namespace hnow::transport::data
