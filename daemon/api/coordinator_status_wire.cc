#include "api/coordinator_status_wire.h"

#include "transport/link_wire.h"
#include "transport/wire_rates.h"

namespace hnow::api {

namespace {

void toWire(const CapInForce& cap, wire::CapInForce::Builder out) {
  out.setBytesPerS(cap.bytesPerSecond);
  out.setBy(cap.by);
}

CapInForce capFromWire(wire::CapInForce::Reader in) { return {in.getBytesPerS(), in.getBy()}; }

template <class List>
void setTexts(const std::vector<std::string>& texts, List out) {
  for (unsigned i = 0; i < out.size(); ++i) out.set(i, texts[i]);
}

template <class List>
std::vector<std::string> textsOf(List in) {
  std::vector<std::string> out;
  for (auto t : in) out.emplace_back(t);
  return out;
}

void toWire(const AgentStatus& a, wire::AgentStatus::Builder out) {
  out.setName(a.name);
  out.setSite(a.site);
  out.setState(a.alive ? wire::AgentState::ALIVE : wire::AgentState::LOST);
  out.setHasRates(a.ratesAgeSeconds.has_value());
  out.setAgeS(a.ratesAgeSeconds.value_or(0.0));
  transport::ratesToWire(a.rates, out.initRates());
  setTexts(a.roots, out.initRoots(static_cast<unsigned>(a.roots.size())));
  out.setDataAddress(a.dataAddress);
  setTexts(a.capabilities, out.initCapabilities(static_cast<unsigned>(a.capabilities.size())));
  transport::toWire(a.uplink, out.initUplink());
  transport::toWire(a.downlink, out.initDownlink());
  toWire(a.uplinkCap, out.initUplinkCap());
  toWire(a.downlinkCap, out.initDownlinkCap());
  out.setRelayFaults(static_cast<std::uint32_t>(a.relayFaults));
  setTexts(a.networks, out.initNetworks(static_cast<unsigned>(a.networks.size())));
  out.setGateway(a.gateway);
  out.setUnreachable(a.unreachable);
  setTexts(a.keyHosts, out.initKeyHosts(static_cast<unsigned>(a.keyHosts.size())));
  out.setKeyHostsChanges(static_cast<std::uint32_t>(a.keyHostsChanges));
  out.setKeyHostsAgeS(a.keyHostsAgeSeconds);
}

AgentStatus agentFromWire(wire::AgentStatus::Reader in) {
  AgentStatus a;
  a.name = in.getName();
  a.site = in.getSite();
  a.alive = in.getState() == wire::AgentState::ALIVE;
  if (in.getHasRates()) a.ratesAgeSeconds = in.getAgeS();
  a.rates = transport::ratesFromWire(in.getRates()).value_or(planner::NodeRates{});
  a.roots = textsOf(in.getRoots());
  a.capabilities = textsOf(in.getCapabilities());
  a.dataAddress = in.getDataAddress();
  a.uplink = transport::linkRateFromWire(in.getUplink());
  a.downlink = transport::linkRateFromWire(in.getDownlink());
  a.uplinkCap = capFromWire(in.getUplinkCap());
  a.downlinkCap = capFromWire(in.getDownlinkCap());
  a.relayFaults = static_cast<int>(in.getRelayFaults());
  a.networks = textsOf(in.getNetworks());
  a.gateway = in.getGateway();
  a.unreachable = in.getUnreachable();
  a.keyHosts = textsOf(in.getKeyHosts());
  a.keyHostsChanges = static_cast<int>(in.getKeyHostsChanges());
  a.keyHostsAgeSeconds = in.getKeyHostsAgeS();
  return a;
}

}  // namespace

void toWire(const CoordinatorStatus& s, wire::ClientSession::StatusResults::Builder out) {
  auto own = out.initCoordinator();
  transport::toWire(s.uplink, own.initUplink());
  transport::toWire(s.downlink, own.initDownlink());
  own.setSurveying(s.surveying);
  toWire(s.uplinkCap, own.initUplinkCap());
  toWire(s.downlinkCap, own.initDownlinkCap());
  auto rooms = own.initRooms(static_cast<unsigned>(s.rooms.size()));
  for (unsigned i = 0; i < rooms.size(); ++i) {
    rooms[i].setName(s.rooms[i].name);
    rooms[i].setAgents(static_cast<std::uint32_t>(s.rooms[i].agents));
    rooms[i].setFoundBy(s.rooms[i].foundBy);
    transport::toWire(s.rooms[i].in, rooms[i].initTrunkIn());
    transport::toWire(s.rooms[i].out, rooms[i].initTrunkOut());
  }
  auto hosts = own.initHosts(static_cast<unsigned>(s.hosts.size()));
  for (unsigned i = 0; i < hosts.size(); ++i) {
    hosts[i].setKey(s.hosts[i].key);
    hosts[i].setAgents(static_cast<std::uint32_t>(s.hosts[i].agents));
    transport::toWire(s.hosts[i].intake, hosts[i].initIntake());
  }
  auto agents = out.initAgents(static_cast<unsigned>(s.agents.size()));
  for (unsigned i = 0; i < agents.size(); ++i) toWire(s.agents[i], agents[i]);
  auto owed = out.initOwed(static_cast<unsigned>(s.owed.size()));
  for (unsigned i = 0; i < owed.size(); ++i) {
    const OwedSend& o = s.owed[i];
    owed[i].setRecord(o.record);
    owed[i].setPath(o.path);
    owed[i].setDest(o.dest);
    setTexts(o.agents, owed[i].initAgents(static_cast<unsigned>(o.agents.size())));
    owed[i].setSinceUnixMs(o.sinceUnixMs);
    owed[i].setSending(o.sending);
  }
  auto waiting = out.initWaiting(static_cast<unsigned>(s.waiting.size()));
  for (unsigned i = 0; i < waiting.size(); ++i) {
    const WaitingSend& w = s.waiting[i];
    waiting[i].setRecord(w.record);
    waiting[i].setPath(w.path);
    waiting[i].setDest(w.dest);
    setTexts(w.agents, waiting[i].initAgents(static_cast<unsigned>(w.agents.size())));
    setTexts(w.away, waiting[i].initAway(static_cast<unsigned>(w.away.size())));
    waiting[i].setSecondsLeft(w.secondsLeft);
  }
}

CoordinatorStatus coordinatorStatusFromWire(wire::ClientSession::StatusResults::Reader in) {
  CoordinatorStatus s;
  auto own = in.getCoordinator();
  s.uplink = transport::linkRateFromWire(own.getUplink());
  s.downlink = transport::linkRateFromWire(own.getDownlink());
  s.surveying = own.getSurveying();
  s.uplinkCap = capFromWire(own.getUplinkCap());
  s.downlinkCap = capFromWire(own.getDownlinkCap());
  for (auto r : own.getRooms())
    s.rooms.push_back({r.getName(), static_cast<int>(r.getAgents()), r.getFoundBy(),
                       transport::linkRateFromWire(r.getTrunkIn()), transport::linkRateFromWire(r.getTrunkOut())});
  for (auto h : own.getHosts())
    s.hosts.push_back({h.getKey(), static_cast<int>(h.getAgents()), transport::linkRateFromWire(h.getIntake())});
  for (auto a : in.getAgents()) s.agents.push_back(agentFromWire(a));
  for (auto o : in.getOwed())
    s.owed.push_back({o.getRecord(), o.getPath(), o.getDest(), textsOf(o.getAgents()), o.getSinceUnixMs(),
                      o.getSending()});
  for (auto w : in.getWaiting())
    s.waiting.push_back({w.getRecord(), w.getPath(), w.getDest(), textsOf(w.getAgents()), textsOf(w.getAway()),
                         w.getSecondsLeft()});
  return s;
}

void toWire(const OperationSummary& r, wire::OperationRecord::Builder out) {
  out.setId(r.id);
  out.setKind(r.kind);
  out.setStartedUnixMs(r.startedUnixMs);
  out.setFinishedUnixMs(r.finishedUnixMs);
  out.setStatus(r.status);
  out.setSummary(r.summary);
  out.setProgress(r.progress);
}

void toWire(const std::vector<OperationSummary>& records, capnp::List<wire::OperationRecord>::Builder out) {
  for (unsigned i = 0; i < out.size(); ++i) toWire(records[i], out[i]);
}

OperationSummary operationFromWire(wire::OperationRecord::Reader r) {
  return {r.getId(), r.getKind(), r.getStartedUnixMs(), r.getFinishedUnixMs(), r.getStatus(), r.getSummary(),
          r.getProgress()};
}

std::vector<OperationSummary> operationsFromWire(capnp::List<wire::OperationRecord>::Reader in) {
  std::vector<OperationSummary> out;
  for (auto r : in)
    out.push_back(operationFromWire(r));
  return out;
}

}  // namespace hnow::api
