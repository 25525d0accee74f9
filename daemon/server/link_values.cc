#include "server/link_values.h"

namespace hnow::daemon {

CounterSample countersOf(const transport::data::LinkCounters& in) {
  CounterSample c;
  c.atSeconds = in.atSeconds;
  c.dataSent = in.dataSent;
  c.dataReceived = in.dataReceived;
  c.tcpSent = in.tcpSent;
  c.tcpReceived = in.tcpReceived;
  c.nicKnown = in.nicKnown;
  c.nicSent = in.nicSent;
  c.nicReceived = in.nicReceived;
  c.nicSentPackets = in.nicSentPackets;
  c.nicReceivedPackets = in.nicReceivedPackets;
  return c;
}

transport::LinkRateReport linkReportOf(const LinkView& link) {
  transport::LinkRateReport out;
  out.bytesPerSecond = link.rate.bytesPerSecond;
  out.method = rateMethodName(link.rate.method);
  out.ageSeconds = link.ageSeconds;
  out.spread = link.rate.spread;
  out.samples = static_cast<unsigned>(link.samples);
  out.otherTraffic = link.foreign;
  out.available = link.available;
  out.told = link.rate.toldBytesPerSecond;
  return out;
}

transport::data::ProbeOrder probeOrderOf(const ProbeOrder& order) {
  transport::data::ProbeOrder out;
  out.token = order.token;
  out.serve = order.serve;
  out.pullFrom = order.pullFrom;
  out.warmSeconds = order.warmSeconds;
  out.windowSeconds = order.windowSeconds;
  return out;
}

ProbeReply probeReplyOf(const transport::data::ProbeResult& result) {
  ProbeReply reply;
  reply.flowBytesPerSecond = result.flowBytesPerSecond;
  reply.sentBytesPerSecond = result.sentBytesPerSecond;
  reply.receivedBytesPerSecond = result.receivedBytesPerSecond;
  reply.windowSeconds = result.windowSeconds;
  reply.before = countersOf(result.before);
  reply.after = countersOf(result.after);
  return reply;
}

}  // namespace hnow::daemon
