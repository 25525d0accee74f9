// ClientSession's calls about hnowd and its agents: `hnow status`,
// `hnow agent set-rate` and `hnow agent forget`. The core's views become
// api/coordinator_status.h's values, which the codec puts on the wire.
#include <kj/debug.h>
#include <spdlog/spdlog.h>

#include <cmath>

#include "api/coordinator_status_wire.h"
#include "server/sessions.h"
#include "server/status_views.h"
#include "transport/rpc_errors.h"

namespace hnow::daemon {

kj::Promise<void> ClientSessionServer::status(StatusContext context) {
  api::toWire(coordinatorStatusOf(sources()), context.getResults());
  return kj::READY_NOW;
}

kj::Promise<void> ClientSessionServer::setEmulatedRates(SetEmulatedRatesContext context) {
  requireFull("set an agent's rates");
  auto params = context.getParams();
  auto in = params.getRates();
  EmulatedRates rates{in.getUplinkMbps(), in.getDownlinkMbps(), in.getComputeFactor()};
  for (double v : {rates.uplinkMbps, rates.downlinkMbps, rates.computeFactor})
    KJ_REQUIRE(std::isfinite(v) && v >= 0, "rates must be finite and not negative");
  std::string name = params.getName();
  if (auto set = coordinator_.setEmulatedRates(name, rates); !set) transport::refuse(set.error().message);
  spdlog::info("emulated rates of {} set: uplink {} Mbit/s, downlink {} Mbit/s, compute x{} (0 = unchanged)",
               name, rates.uplinkMbps, rates.downlinkMbps, rates.computeFactor);
  return kj::READY_NOW;
}

kj::Promise<void> ClientSessionServer::forgetAgent(ForgetAgentContext context) {
  requireFull("forget an agent");
  const std::string name = context.getParams().getName();
  if (auto forgotten = coordinator_.forget(name); !forgotten) {
    spdlog::warn("refused to forget agent '{}' for {}: {}", name, peer_, forgotten.error().message);
    transport::refuse(forgotten.error().message);
  }
  return kj::READY_NOW;
}

}  // namespace hnow::daemon
