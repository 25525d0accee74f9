// Every field of the link measurements survives one side's writing and the
// other's reading (agent -> hnowd: counters, probe results; hnowd -> agent:
// probe orders; hnowd -> CLI: link rates; both ways: rates), and what does
// not fit is refused.
#include <doctest/doctest.h>

#include <capnp/message.h>

#include <cmath>
#include <limits>

#include "transport/link_wire.h"
#include "transport/wire_rates.h"

using namespace hnow::transport;
namespace data = hnow::transport::data;

namespace {

data::LinkCounters counters(std::uint64_t k) {
  data::LinkCounters c;
  c.atSeconds = 12.5 + static_cast<double>(k);
  c.dataSent = 1 + k, c.dataReceived = 2 + k, c.tcpSent = 3 + k, c.tcpReceived = 4 + k;
  c.nicKnown = true, c.nicSent = 7 + k, c.nicReceived = 8 + k;
  c.nicSentPackets = 5 + k, c.nicReceivedPackets = 6 + k;
  return c;
}

void checkSame(const data::LinkCounters& a, const data::LinkCounters& b) {
  CHECK(a.atSeconds == b.atSeconds);
  CHECK(a.dataSent == b.dataSent);
  CHECK(a.dataReceived == b.dataReceived);
  CHECK(a.tcpSent == b.tcpSent);
  CHECK(a.tcpReceived == b.tcpReceived);
  CHECK(a.nicKnown == b.nicKnown);
  CHECK(a.nicSent == b.nicSent);
  CHECK(a.nicReceived == b.nicReceived);
  CHECK(a.nicSentPackets == b.nicSentPackets);
  CHECK(a.nicReceivedPackets == b.nicReceivedPackets);
}

}  // namespace

TEST_CASE("link counters survive the agent's writing and hnowd's reading - a time that is no number is refused") {
  capnp::MallocMessageBuilder message;
  auto out = message.initRoot<hnow::wire::LinkCounters>();
  toWire(counters(100), out);
  auto back = countersFromWire(out.asReader());
  REQUIRE(back);
  checkSame(*back, counters(100));
  out.setAtS(std::numeric_limits<double>::quiet_NaN());
  CHECK_FALSE(countersFromWire(out.asReader()));
}

TEST_CASE("a probe order survives hnowd's writing and the agent's reading - a short token is refused") {
  data::ProbeOrder order;
  order.token = std::string(32, 't');
  order.serve = true;
  order.pullFrom = {"10.0.0.2:7101", "10.0.0.3:7101"};
  order.warmSeconds = 0.4;
  order.windowSeconds = 0.9;
  capnp::MallocMessageBuilder message;
  auto out = message.initRoot<hnow::wire::LinkProbeOrder>();
  toWire(order, out);
  auto back = probeOrderFromWire(out.asReader());
  REQUIRE(back);
  CHECK(back->token == order.token);
  CHECK(back->serve == order.serve);
  CHECK(back->pullFrom == order.pullFrom);
  CHECK(back->warmSeconds == order.warmSeconds);
  CHECK(back->windowSeconds == order.windowSeconds);
  order.token = "short";
  toWire(order, out);
  auto refused = probeOrderFromWire(out.asReader());
  REQUIRE_FALSE(refused);
  CHECK(refused.error().message == "a probe token is 32 bytes");
}

TEST_CASE("a probe result survives the agent's writing and hnowd's reading - one that does not fit the order is refused") {
  data::ProbeResult result;
  result.flowBytes = {1000, 2000, 3000};
  result.flowBytesPerSecond = {1700.5, 3300.25, 4900.0};
  result.windowSeconds = 0.61;
  result.before = counters(1);
  result.after = counters(2);
  capnp::MallocMessageBuilder message;
  auto out = message.initRoot<hnow::wire::LinkProbeResult>();
  toWire(result, out);
  auto back = probeResultFromWire(out.asReader(), 3);
  REQUIRE(back);
  CHECK(back->flowBytes == result.flowBytes);
  CHECK(back->flowBytesPerSecond == result.flowBytesPerSecond);
  CHECK(back->windowSeconds == result.windowSeconds);
  checkSame(back->before, result.before);
  checkSame(back->after, result.after);
  CHECK(probeResultFromWire(out.asReader(), 2).error().message ==
        "its answer does not fit the order (flows, window or counters)");
  out.getFlowBytesPerS().set(1, -1.0);
  CHECK(probeResultFromWire(out.asReader(), 3).error().message == "its answer has a flow rate that is not a rate");
  out.initFlowBytesPerS(2);
  CHECK(probeResultFromWire(out.asReader(), 3).error().message == "its answer does not fit the order (flow rates)");
  // An agent from before fitted rates sends counts only: they are read as
  // rates over the window.
  out.initFlowBytesPerS(0);
  auto counted = probeResultFromWire(out.asReader(), 3);
  REQUIRE(counted);
  REQUIRE(counted->flowBytesPerSecond.size() == 3);
  CHECK(counted->flowBytesPerSecond[1] == doctest::Approx(2000 / 0.61));
  out.setWindowS(0);
  CHECK_FALSE(probeResultFromWire(out.asReader(), 3));
}

TEST_CASE("a link's rate survives hnowd's writing and the CLI's reading - an empty method reads unknown") {
  LinkRateReport link;
  link.bytesPerSecond = 12.5e6;
  link.method = "bound";
  link.ageSeconds = 42.5;
  link.spread = 0.08;
  link.samples = 5;
  link.otherTraffic = 3e6;
  link.available = 9.5e6;
  capnp::MallocMessageBuilder message;
  auto out = message.initRoot<hnow::wire::LinkRate>();
  toWire(link, out);
  const LinkRateReport back = linkRateFromWire(out.asReader());
  CHECK(back.bytesPerSecond == link.bytesPerSecond);
  CHECK(back.method == link.method);
  CHECK(back.ageSeconds == link.ageSeconds);
  CHECK(back.spread == link.spread);
  CHECK(back.samples == link.samples);
  CHECK(back.otherTraffic == link.otherTraffic);
  CHECK(back.available == link.available);
  out.setMethod("");
  CHECK(linkRateFromWire(out.asReader()).method == "unknown");
}

TEST_CASE("a node's rates survive the wire - a negative or infinite one is refused") {
  hnow::planner::NodeRates rates;
  rates.uplinkBytesPerSecond = 50e6;
  rates.downlinkBytesPerSecond = 100e6;
  rates.sendOverheadSeconds = 2e-4;
  rates.receiveOverheadSeconds = 3e-4;
  rates.computeSecondsPerUnit = 1.5e-3;
  capnp::MallocMessageBuilder message;
  auto out = message.initRoot<hnow::wire::Rates>();
  ratesToWire(rates, out);
  auto back = ratesFromWire(out.asReader());
  REQUIRE(back);
  CHECK(back->uplinkBytesPerSecond == rates.uplinkBytesPerSecond);
  CHECK(back->downlinkBytesPerSecond == rates.downlinkBytesPerSecond);
  CHECK(back->sendOverheadSeconds == rates.sendOverheadSeconds);
  CHECK(back->receiveOverheadSeconds == rates.receiveOverheadSeconds);
  CHECK(back->computeSecondsPerUnit == rates.computeSecondsPerUnit);
  out.setRecvOverheadS(-1);
  CHECK_FALSE(ratesFromWire(out.asReader()));
  out.setRecvOverheadS(0);
  out.setUplinkBytesPerS(std::numeric_limits<double>::infinity());
  CHECK_FALSE(ratesFromWire(out.asReader()));
}
