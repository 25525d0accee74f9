#include "core/coordinator.h"

namespace hnow::daemon {

Coordinator::Coordinator(const Clock& clock, RateTableOptions options, StateStore& store)
    : clock_(clock), table_(clock, options), store_(store), operations_(clock, store) {}

WallTime Coordinator::wallOf(TimePoint t) const { return clock_.wallNow() - (clock_.now() - t); }
TimePoint Coordinator::steadyOf(WallTime t) const { return clock_.now() - (clock_.wallNow() - t); }

void Coordinator::restore() {
  for (const StoredAgent& stored : store_.loadAgents()) {
    AgentRecord record;
    record.name = stored.name;
    record.site = stored.site;
    record.hasRates = stored.hasRates;
    record.rates = stored.rates;
    record.ratesAt = steadyOf(stored.ratesAt);
    record.lastHeard = steadyOf(stored.lastSeen);
    lastSeenSaved_[record.name] = record.lastHeard;
    table_.restore(std::move(record));
  }
  // What the previous hnowd was doing when it stopped did not finish here:
  // say so rather than show it running forever (`hnow ops`).
  interruptedAtStart_ = store_.interruptRunning(clock_.wallNow());
}

void Coordinator::persist() {
  std::vector<StoredAgent> rows;
  std::map<std::string, TimePoint> saved;
  for (const AgentRecord& r : table_.snapshot()) {
    auto last = lastSeenSaved_.find(r.name);
    const bool stale = last == lastSeenSaved_.end() || r.lastHeard - last->second >= kLastSeenEvery;
    if (!stale && !changed_.count(r.name)) continue;
    rows.push_back({r.name, r.site, r.hasRates, r.rates, wallOf(r.ratesAt), wallOf(r.lastHeard)});
    saved[r.name] = r.lastHeard;
  }
  store_.saveAgents(rows);  // throws on failure: everything stays pending
  changed_.clear();
  for (auto& [name, at] : saved) lastSeenSaved_[name] = at;
}

SessionId Coordinator::attach(AgentRegistration registration, std::unique_ptr<AgentLink> link) {
  const SessionId session = nextSession_++;
  Agent& agent = agents_[registration.name];
  if (agent.session != 0) sessions_.erase(agent.session);
  table_.registerAgent(registration.name, registration.site);
  sessions_[session] = &agent;
  agent.registration = std::move(registration);
  agent.session = session;
  agent.link = std::move(link);
  changed_.insert(agent.registration.name);
  return session;
}

Coordinator::Agent* Coordinator::current(SessionId session) {
  auto it = sessions_.find(session);
  return it == sessions_.end() ? nullptr : it->second;
}

bool Coordinator::heartbeat(SessionId session) {
  Agent* agent = current(session);
  return agent && table_.heartbeat(agent->registration.name);
}

bool Coordinator::reportRates(SessionId session, const planner::NodeRates& rates) {
  Agent* agent = current(session);
  if (!agent || !table_.reportRates(agent->registration.name, rates)) return false;
  changed_.insert(agent->registration.name);
  return true;
}

void Coordinator::detach(SessionId session) {
  Agent* agent = current(session);
  if (!agent) return;
  sessions_.erase(session);
  agent->session = 0;
  agent->link.reset();
  table_.disconnected(agent->registration.name);
  changed_.insert(agent->registration.name);
  for (TransferObserver* o : observers_) o->agentGone(agent->registration.name);
}

std::vector<RateEvent> Coordinator::tick() {
  std::vector<RateEvent> events = table_.tick();
  for (TransferObserver* o : observers_)
    for (const RateEvent& e : events) {
      if (e.kind == RateEvent::Kind::kLost) o->agentGone(e.agent);
      if (e.kind == RateEvent::Kind::kDrift)
        if (const AgentRecord* r = table_.find(e.agent)) o->ratesDrifted(e, r->rates);
    }
  return events;
}

bool Coordinator::reportTransfer(SessionId session, const std::string& token,
                                 const TransferReport& report) {
  Agent* agent = current(session);
  if (!agent) return false;
  for (TransferObserver* o : observers_) o->transferReport(agent->registration.name, token, report);
  return true;
}

AgentLink* Coordinator::link(const std::string& name) {
  auto it = agents_.find(name);
  return it == agents_.end() ? nullptr : it->second.link.get();
}

std::vector<AgentView> Coordinator::status() const {
  std::vector<AgentView> out;
  const TimePoint now = clock_.now();
  for (const AgentRecord& record : table_.snapshot()) {
    AgentView view;
    view.record = record;
    if (auto it = agents_.find(record.name); it != agents_.end()) {
      view.registration = it->second.registration;
      view.connected = it->second.session != 0;
    }
    if (record.hasRates) view.ratesAgeSeconds = seconds(now - record.ratesAt);
    out.push_back(std::move(view));
  }
  return out;
}

std::string Coordinator::setEmulatedRates(const std::string& name, const EmulatedRates& rates) {
  auto it = agents_.find(name);
  if (it == agents_.end()) return "no agent named '" + name + "' has registered";
  if (!it->second.link) return "agent '" + name + "' is not connected";
  const std::string summary = "{\"agent\":" + jsonString(name) +
                              ",\"uplink_mbps\":" + std::to_string(rates.uplinkMbps) +
                              ",\"downlink_mbps\":" + std::to_string(rates.downlinkMbps) +
                              ",\"compute_factor\":" + std::to_string(rates.computeFactor);
  const OperationId id = operations_.begin("set-rate", summary + "}");
  it->second.link->setEmulatedRates(rates, [this, id, summary](const std::string& error) {
    if (error.empty())
      operations_.finish(id, "done", summary + "}");
    else
      operations_.finish(id, "failed", summary + ",\"error\":" + jsonString(error) + "}");
  });
  return "";
}

std::size_t Coordinator::connectedCount() const { return sessions_.size(); }

}  // namespace hnow::daemon
