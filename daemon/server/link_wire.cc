#include "server/link_wire.h"

#include <cmath>

namespace hnow::daemon {

std::optional<CounterSample> countersFromWire(wire::LinkCounters::Reader in) {
  if (!std::isfinite(in.getAtS())) return std::nullopt;
  CounterSample c;
  c.atSeconds = in.getAtS();
  c.dataSent = in.getDataSent();
  c.dataReceived = in.getDataReceived();
  c.tcpSent = in.getTcpSent();
  c.tcpReceived = in.getTcpReceived();
  c.wireSent = in.getWireSent();
  c.wireReceived = in.getWireReceived();
  c.nicKnown = in.getNicKnown();
  c.nicSent = in.getNicSent();
  c.nicReceived = in.getNicReceived();
  return c;
}

void linkToWire(const LinkView& link, wire::LinkRate::Builder out) {
  out.setBytesPerS(link.rate.bytesPerSecond);
  out.setMethod(rateMethodName(link.rate.method));
  out.setAgeS(link.ageSeconds);
  out.setSpread(link.rate.spread);
  out.setSamples(static_cast<std::uint32_t>(link.samples));
  out.setForeignBytesPerS(link.foreign);
  out.setAvailableBytesPerS(link.available);
}

void probeOrderToWire(const ProbeOrder& order, wire::LinkProbeOrder::Builder out) {
  out.setToken(capnp::Data::Reader(reinterpret_cast<const kj::byte*>(order.token.data()), order.token.size()));
  out.setServe(order.serve);
  auto pulls = out.initPullFrom(static_cast<unsigned>(order.pullFrom.size()));
  for (unsigned i = 0; i < pulls.size(); ++i) pulls.set(i, order.pullFrom[i]);
  out.setWarmS(order.warmSeconds);
  out.setWindowS(order.windowSeconds);
}

ProbeReply probeReplyFromWire(wire::LinkProbeResult::Reader in, std::size_t flows) {
  ProbeReply reply;
  auto before = countersFromWire(in.getBefore()), after = countersFromWire(in.getAfter());
  if (in.getFlowBytes().size() != flows || !std::isfinite(in.getWindowS()) || in.getWindowS() <= 0 || !before ||
      !after) {
    reply.error = "its answer does not fit the order (flows, window or counters)";
    return reply;
  }
  for (auto bytes : in.getFlowBytes()) reply.flowBytes.push_back(bytes);
  reply.windowSeconds = in.getWindowS();
  reply.before = *before;
  reply.after = *after;
  return reply;
}

}  // namespace hnow::daemon
