#include "core/coordinator.h"

namespace hnow::daemon {

Coordinator::Coordinator(const Clock& clock, RateTableOptions options)
    : clock_(clock), table_(clock, options) {}

SessionId Coordinator::attach(AgentRegistration registration, std::unique_ptr<AgentLink> link) {
  const SessionId session = nextSession_++;
  Agent& agent = agents_[registration.name];
  if (agent.session != 0) sessionNames_.erase(agent.session);
  table_.registerAgent(registration.name, registration.site);
  sessionNames_[session] = registration.name;
  agent.registration = std::move(registration);
  agent.session = session;
  agent.link = std::move(link);
  return session;
}

Coordinator::Agent* Coordinator::current(SessionId session) {
  auto it = sessionNames_.find(session);
  if (it == sessionNames_.end()) return nullptr;
  return &agents_.at(it->second);
}

bool Coordinator::heartbeat(SessionId session) {
  Agent* agent = current(session);
  return agent && table_.heartbeat(agent->registration.name);
}

bool Coordinator::reportRates(SessionId session, const planner::NodeRates& rates) {
  Agent* agent = current(session);
  return agent && table_.reportRates(agent->registration.name, rates);
}

void Coordinator::detach(SessionId session) {
  Agent* agent = current(session);
  if (!agent) return;
  sessionNames_.erase(session);
  agent->session = 0;
  agent->link.reset();
  table_.disconnected(agent->registration.name);
  if (observer_) observer_->agentGone(agent->registration.name);
}

std::vector<RateEvent> Coordinator::tick() {
  std::vector<RateEvent> events = table_.tick();
  if (observer_)
    for (const RateEvent& e : events)
      if (e.kind == RateEvent::Kind::kLost) observer_->agentGone(e.agent);
  return events;
}

bool Coordinator::reportTransfer(SessionId session, const std::string& token,
                                 const TransferReport& report) {
  Agent* agent = current(session);
  if (!agent) return false;
  if (observer_) observer_->transferReport(agent->registration.name, token, report);
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
  it->second.link->setEmulatedRates(rates);
  return "";
}

std::size_t Coordinator::connectedCount() const { return sessionNames_.size(); }

}  // namespace hnow::daemon
