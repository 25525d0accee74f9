#include <doctest/doctest.h>

#include "core/links/node_loads.h"

using namespace hnow;
using namespace hnow::daemon;
using namespace std::chrono_literals;

namespace {
// The interface's counters: `nicSent` and `nicReceived` payload bytes in
// packets of `packetPayload` bytes each, every one with its 66 bytes of headers.
CounterSample at(double seconds, std::uint64_t sent, std::uint64_t received, std::uint64_t nicSent,
                 std::uint64_t nicReceived, bool nic = true, std::uint64_t packetPayload = 1448) {
  CounterSample c;
  c.atSeconds = seconds;
  c.dataSent = c.tcpSent = sent;
  c.dataReceived = c.tcpReceived = received;
  c.nicKnown = nic;
  c.nicSentPackets = (nicSent + packetPayload - 1) / packetPayload;
  c.nicReceivedPackets = (nicReceived + packetPayload - 1) / packetPayload;
  c.nicSent = nicSent + 66 * c.nicSentPackets;
  c.nicReceived = nicReceived + 66 * c.nicReceivedPackets;
  return c;
}
}  // namespace

TEST_CASE("a node's load is hnow's payload plus the other traffic its interface carried, by its own clock") {
  // 2 s: hnow sent 20 MB and received 2 MB; the interface carried 1.448 MB/s more out.
  const CounterSample a = at(10.0, 0, 0, 0, 0);
  const CounterSample b = at(12.0, 20'000'000, 2'000'000, 20'000'000 + 2'896'000, 2'000'000);
  NodeLoad load = loadBetween(a, b);
  CHECK(load.foreignSent == doctest::Approx(1'448'000).epsilon(0.001));
  CHECK(load.sent == doctest::Approx(10'000'000 + 1'448'000).epsilon(0.001));
  CHECK(load.foreignReceived == doctest::Approx(0).epsilon(0.001));
  CHECK(load.received == doctest::Approx(1'000'000).epsilon(0.001));
}

TEST_CASE("other traffic is the same whether the interface counts frames or GSO packets of 64 KiB") {
  // hnow sent 30 MB in 1 s; another program 10 MB: a NIC's frames carry
  // 1448 bytes each, a veth's GSO packets 65160 (45 segments), and both
  // count one set of headers per packet.
  for (std::uint64_t packet : {1448ull, 65160ull}) {
    CAPTURE(packet);
    const NodeLoad load = loadBetween(at(0, 0, 0, 0, 0, true, packet), at(1, 30'000'000, 0, 40'000'000, 0, true, packet));
    CHECK(load.foreignSent == doctest::Approx(10'000'000).epsilon(0.001));
    CHECK(load.sent == doctest::Approx(40'000'000).epsilon(0.001));
  }
}

TEST_CASE("the pure ACKs of a download are headers alone - no other traffic on the uplink") {
  CounterSample a = at(0, 0, 0, 0, 0), b = at(1, 0, 50'000'000, 0, 50'000'000);
  b.nicSentPackets = 17'000;  // one ACK per two segments received
  b.nicSent = 66 * b.nicSentPackets;
  const NodeLoad load = loadBetween(a, b);
  CHECK(load.foreignSent == 0);
  CHECK(load.foreignReceived == doctest::Approx(0).epsilon(0.001));
}

TEST_CASE("interface counters without packet counts cannot tell headers from payload - hnow's traffic alone") {
  CounterSample a = at(0, 0, 0, 0, 0), b = at(1, 1'000'000, 0, 9'000'000, 0);
  a.nicSentPackets = a.nicReceivedPackets = b.nicSentPackets = b.nicReceivedPackets = 0;
  const NodeLoad load = loadBetween(a, b);
  CHECK(load.foreignSent == 0);
  CHECK(load.sent == 1'000'000);
}

TEST_CASE("without the interface's counters a load is hnow's alone - an interface reading below hnow's is no other traffic") {
  NodeLoad load = loadBetween(at(0, 0, 0, 0, 0, false), at(1, 5'000'000, 0, 0, 0, false));
  CHECK(load.sent == 5'000'000);
  CHECK(load.foreignSent == 0);
  load = loadBetween(at(0, 0, 0, 0, 0), at(1, 5'000'000, 0, 4'000'000, 0));  // not yet through the interface
  CHECK(load.foreignSent == 0);
}

TEST_CASE("loads over a window come from the samples nearest its ends - too few samples give none - a restart starts over") {
  NodeLoads loads;
  const TimePoint t0{};
  CHECK_FALSE(loads.over("a", t0, t0 + 2s));
  for (int i = 0; i <= 8; ++i)
    loads.add("a", t0 + i * 500ms, at(100 + i * 0.5, static_cast<std::uint64_t>(i) * 1'000'000, 0, 0, 0, false));
  auto load = loads.over("a", t0 + 2s, t0 + 4s);
  REQUIRE(load);
  CHECK(load->sent == doctest::Approx(2'000'000));
  CHECK_FALSE(loads.over("a", t0 + 3900ms, t0 + 10s));  // the samples span less than half the window
  loads.add("a", t0 + 4500ms, at(1.0, 0, 0, 0, 0, false));  // the agent restarted
  CHECK_FALSE(loads.over("a", t0 + 2s, t0 + 4500ms));
}
