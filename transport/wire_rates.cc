#include "transport/wire_rates.h"

#include <cmath>

namespace hnow::transport {

std::optional<planner::NodeRates> ratesFromWire(wire::Rates::Reader in) {
  planner::NodeRates r;
  r.uplinkBytesPerSecond = in.getUplinkBytesPerS();
  r.downlinkBytesPerSecond = in.getDownlinkBytesPerS();
  r.sendOverheadSeconds = in.getSendOverheadS();
  r.receiveOverheadSeconds = in.getRecvOverheadS();
  r.computeSecondsPerUnit = in.getComputeSPerUnit();
  for (double v : {r.uplinkBytesPerSecond, r.downlinkBytesPerSecond, r.sendOverheadSeconds,
                   r.receiveOverheadSeconds, r.computeSecondsPerUnit})
    if (!std::isfinite(v) || v < 0) return std::nullopt;
  return r;
}

void ratesToWire(const planner::NodeRates& r, wire::Rates::Builder out) {
  out.setUplinkBytesPerS(r.uplinkBytesPerSecond);
  out.setDownlinkBytesPerS(r.downlinkBytesPerSecond);
  out.setSendOverheadS(r.sendOverheadSeconds);
  out.setRecvOverheadS(r.receiveOverheadSeconds);
  out.setComputeSPerUnit(r.computeSecondsPerUnit);
}

}  // namespace hnow::transport
