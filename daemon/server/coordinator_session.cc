// ClientSession's calls about hnowd and its agents: `hnow status`,
// `hnow agent set-rate` and `hnow agent forget`. The core's views become
// api/coordinator_status.h's values, which the codec puts on the wire.
#include <kj/debug.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <cmath>

#include "api/coordinator_status_wire.h"
#include "core/links/hosts.h"
#include "core/send/owed_sends.h"
#include "core/send/sends_under_way.h"
#include "core/links/rooms.h"
#include "core/links/survey_runner.h"
#include "server/link_values.h"
#include "server/sessions.h"
#include "transport/rpc_errors.h"

namespace hnow::daemon {

namespace {

api::CapInForce capOf(const CapView& cap) { return {cap.bytesPerSecond, cap.by}; }

std::int64_t unixMs(WallTime t) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(t.time_since_epoch()).count();
}

}  // namespace

api::AgentStatus ClientSessionServer::agentStatusOf(const AgentView& a) const {
  api::AgentStatus out;
  out.name = a.record.name;
  out.site = a.record.site;
  out.alive = a.record.state == AgentState::kAlive;
  out.ratesAgeSeconds = a.ratesAgeSeconds;
  out.rates = a.record.rates;
  out.roots = a.registration.roots;
  out.capabilities = a.registration.capabilities;
  out.dataAddress = a.registration.dataAddress;
  out.uplink = linkReportOf(a.links.up);
  out.downlink = linkReportOf(a.links.down);
  out.uplinkCap = capOf(a.caps.up);
  out.downlinkCap = capOf(a.caps.down);
  out.relayFaults = a.relayFaults;
  out.networks = a.registration.networks;
  out.gateway = a.registration.gateway;
  if (!a.reachability.reachable) out.unreachable = a.reachability.note;
  keyHostsOf(a.record.name, out);
  return out;
}

kj::Promise<void> ClientSessionServer::status(StatusContext context) {
  api::CoordinatorStatus status;
  const NodeLinks own = coordinator_.coordinatorLinks();
  status.uplink = linkReportOf(own.up);
  status.downlink = linkReportOf(own.down);
  status.surveying = surveys_ && surveys_->running();
  const NodeCaps ownCaps = coordinator_.pacing().coordinatorCaps();
  status.uplinkCap = capOf(ownCaps.up);
  status.downlinkCap = capOf(ownCaps.down);
  for (const RoomView& r : roomViews(coordinator_))
    status.rooms.push_back({r.name, r.agents, r.foundBy, linkReportOf(r.in), linkReportOf(r.out)});
  for (const HostView& h : hostViews(coordinator_))
    status.hosts.push_back({h.host, h.agents, linkReportOf(h.intake)});
  for (const AgentView& a : coordinator_.status()) status.agents.push_back(agentStatusOf(a));
  if (owed_)
    for (const OwedSends::Owed& o : owed_->owed())
      status.owed.push_back({static_cast<std::int64_t>(o.id), o.path, o.dest, o.agents, unixMs(o.since), o.sending});
  if (underWay_)
    for (const SendsUnderWay::WaitingSend& w : underWay_->waitingSends())
      status.waiting.push_back({static_cast<std::int64_t>(w.record), w.path, w.dest, w.agents, w.away, seconds(w.left)});
  api::toWire(status, context.getResults());
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
