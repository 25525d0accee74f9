#include "agent/agent_control.h"

#include <kj/debug.h>

#include <cmath>

#include "agent/receiver.h"
#include "transport/link_wire.h"
#include "transport/rpc_errors.h"

namespace hnow::agent {

kj::Promise<void> AgentControlServer::setEmulatedRates(SetEmulatedRatesContext context) {
  auto in = context.getParams().getRates();
  double up = in.getUplinkMbps(), down = in.getDownlinkMbps(), factor = in.getComputeFactor();
  for (double v : {up, down, factor})
    KJ_REQUIRE(std::isfinite(v) && v >= 0, "rates must be finite and not negative");
  KJ_REQUIRE(factor == 0 || factor >= 1, "a compute factor can only slow work down");
  runtime_.setEmulation(up, down, factor);
  return kj::READY_NOW;
}

kj::Promise<void> AgentControlServer::probeNow(ProbeNowContext) {
  runtime_.requestProbe();
  return kj::READY_NOW;
}

kj::Promise<void> AgentControlServer::probeLinks(ProbeLinksContext context) {
  auto order = transport::valueOrRefuse(transport::probeOrderFromWire(context.getParams().getOrder()));
  return runtime_.receiver().probe(std::move(order)).then([context](Receiver::ProbeAnswer r) mutable {
    transport::toWire(transport::valueOrRefuse(std::move(*r)), context.getResults().initResult());
  });
}

}  // namespace hnow::agent
