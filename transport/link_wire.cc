#include "transport/link_wire.h"
#include "transport/wire_bytes.h"

#include <cmath>

namespace hnow::transport {

void toWire(const data::LinkCounters& c, wire::LinkCounters::Builder out) {
  out.setAtS(c.atSeconds);
  out.setDataSent(c.dataSent);
  out.setDataReceived(c.dataReceived);
  out.setTcpSent(c.tcpSent);
  out.setTcpReceived(c.tcpReceived);
  out.setNicKnown(c.nicKnown);
  out.setNicSent(c.nicSent);
  out.setNicReceived(c.nicReceived);
  out.setNicSentPackets(c.nicSentPackets);
  out.setNicReceivedPackets(c.nicReceivedPackets);
}

std::optional<data::LinkCounters> countersFromWire(wire::LinkCounters::Reader in) {
  if (!std::isfinite(in.getAtS())) return std::nullopt;
  data::LinkCounters c;
  c.atSeconds = in.getAtS();
  c.dataSent = in.getDataSent();
  c.dataReceived = in.getDataReceived();
  c.tcpSent = in.getTcpSent();
  c.tcpReceived = in.getTcpReceived();
  c.nicKnown = in.getNicKnown();
  c.nicSent = in.getNicSent();
  c.nicReceived = in.getNicReceived();
  c.nicSentPackets = in.getNicSentPackets();
  c.nicReceivedPackets = in.getNicReceivedPackets();
  return c;
}

void toWire(const data::ProbeOrder& order, wire::LinkProbeOrder::Builder out) {
  out.setToken(dataOf(order.token));
  out.setServe(order.serve);
  auto pulls = out.initPullFrom(static_cast<unsigned>(order.pullFrom.size()));
  for (unsigned i = 0; i < pulls.size(); ++i) pulls.set(i, order.pullFrom[i]);
  out.setWarmS(order.warmSeconds);
  out.setWindowS(order.windowSeconds);
}

Result<data::ProbeOrder> probeOrderFromWire(wire::LinkProbeOrder::Reader in) {
  if (in.getToken().size() != wire::TOKEN_BYTES) return Error{"a probe token is 32 bytes"};
  data::ProbeOrder order;
  order.token = stringOf(in.getToken());
  order.serve = in.getServe();
  for (auto a : in.getPullFrom()) order.pullFrom.emplace_back(a);
  order.warmSeconds = in.getWarmS();
  order.windowSeconds = in.getWindowS();
  return order;
}

void toWire(const data::ProbeResult& r, wire::LinkProbeResult::Builder out) {
  auto flows = out.initFlowBytes(static_cast<unsigned>(r.flowBytes.size()));
  for (unsigned i = 0; i < flows.size(); ++i) flows.set(i, r.flowBytes[i]);
  auto rates = out.initFlowBytesPerS(static_cast<unsigned>(r.flowBytesPerSecond.size()));
  for (unsigned i = 0; i < rates.size(); ++i) rates.set(i, r.flowBytesPerSecond[i]);
  out.setSentBytesPerS(r.sentBytesPerSecond);
  out.setReceivedBytesPerS(r.receivedBytesPerSecond);
  out.setWindowS(r.windowSeconds);
  toWire(r.before, out.initBefore());
  toWire(r.after, out.initAfter());
}

Result<data::ProbeResult> probeResultFromWire(wire::LinkProbeResult::Reader in, std::size_t flows) {
  auto before = countersFromWire(in.getBefore()), after = countersFromWire(in.getAfter());
  if (in.getFlowBytes().size() != flows || !std::isfinite(in.getWindowS()) || in.getWindowS() <= 0 || !before ||
      !after)
    return Error{"its answer does not fit the order (flows, window or counters)"};
  const auto rates = in.getFlowBytesPerS();
  if (rates.size() != 0 && rates.size() != flows) return Error{"its answer does not fit the order (flow rates)"};
  data::ProbeResult r;
  r.windowSeconds = in.getWindowS();
  for (auto bytes : in.getFlowBytes()) r.flowBytes.push_back(bytes);
  // An agent from before fitted rates sends only counts.
  for (unsigned i = 0; i < flows; ++i) {
    const double rate = rates.size() != 0 ? rates[i] : static_cast<double>(r.flowBytes[i]) / r.windowSeconds;
    if (!std::isfinite(rate) || rate < 0) return Error{"its answer has a flow rate that is not a rate"};
    r.flowBytesPerSecond.push_back(rate);
  }
  r.sentBytesPerSecond = in.getSentBytesPerS();
  r.receivedBytesPerSecond = in.getReceivedBytesPerS();
  if (!std::isfinite(r.sentBytesPerSecond) || r.sentBytesPerSecond < 0 || !std::isfinite(r.receivedBytesPerSecond) ||
      r.receivedBytesPerSecond < 0)
    return Error{"its answer has a load that is not a rate"};
  r.before = *before;
  r.after = *after;
  return r;
}

void toWire(const LinkRateReport& link, wire::LinkRate::Builder out) {
  out.setBytesPerS(link.bytesPerSecond);
  out.setMethod(link.method);
  out.setAgeS(link.ageSeconds);
  out.setSpread(link.spread);
  out.setSamples(link.samples);
  out.setForeignBytesPerS(link.otherTraffic);
  out.setAvailableBytesPerS(link.available);
  out.setToldBytesPerS(link.told);
}

LinkRateReport linkRateFromWire(wire::LinkRate::Reader in) {
  LinkRateReport l;
  l.bytesPerSecond = in.getBytesPerS();
  l.method = in.getMethod();
  if (l.method.empty()) l.method = "unknown";
  l.ageSeconds = in.getAgeS();
  l.spread = in.getSpread();
  l.samples = in.getSamples();
  l.otherTraffic = in.getForeignBytesPerS();
  l.available = in.getAvailableBytesPerS();
  l.told = in.getToldBytesPerS();
  return l;
}

}  // namespace hnow::transport
