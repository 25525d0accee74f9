#include "core/coordinator.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <random>
#include <utility>

#include "core/links/rooms.h"

namespace hnow::daemon {

namespace {

LinkOptions linkOptionsFrom(const RateTableOptions& o) {
  LinkOptions links;
  links.book.driftThreshold = o.driftThreshold;
  links.book.dwell = o.driftDwell;
  links.book.ewmaWeight = o.ewmaWeight;
  return links;
}

}  // namespace

Coordinator::Coordinator(const Clock& clock, RateTableOptions options, StateStore& store,
                         std::optional<LinkOptions> links)
    : clock_(clock), table_(clock, options), links_(clock, links ? *links : linkOptionsFrom(options)),
      pacing_(links_.book(), table_), store_(store), operations_(clock, store), instance_([] {
        std::random_device random;
        // Never 0: an agent takes 0 as "no instance" (an hnowd that does not say).
        return ((std::uint64_t{random()} << 32) | random()) | 1;
      }()) {}

namespace {
constexpr const char* kRelayFaultsLedger = "relay-faults";
}  // namespace

Result<void> Coordinator::restore() {
  auto agents = store_.loadAgents();
  if (!agents) return agents.error();
  for (const StoredAgent& stored : *agents) {
    AgentRecord record;
    record.name = stored.name;
    record.site = stored.site;
    record.hasRates = stored.hasRates;
    record.rates = stored.rates;
    record.ratesAt = steadyOf(clock_, stored.ratesAt);
    record.lastHeard = steadyOf(clock_, stored.lastSeen);
    lastSeenSaved_[record.name] = record.lastHeard;
    table_.restore(std::move(record));
  }
  if (auto links = links_.restore(store_); !links) return links;
  auto faults = store_.loadLedger(kRelayFaultsLedger);
  if (!faults) return faults.error();
  std::map<std::string, int> counts;
  for (const StoredLedgerEntry& e : *faults) counts[e.agent] = static_cast<int>(e.first);
  relays_.suspects().restore(std::move(counts));
  // What the previous hnowd was doing when it stopped did not finish here:
  // say so rather than show it running forever (`hnow ops`).
  auto interrupted = store_.interruptRunning(clock_.wallNow());
  if (!interrupted) return interrupted.error();
  interruptedAtStart_ = *interrupted;
  return {};
}

std::vector<std::string> Coordinator::relayFaultsCaught(const std::string& kind, std::uint64_t id,
                                                        const std::vector<RelayFault>& faults) {
  auto lines = relays_.suspects().caught(kind, id, faults);
  counts_.relayFaults += faults.size();
  std::vector<StoredLedgerEntry> entries;
  for (const auto& [agent, count] : relays_.suspects().ledger()) entries.push_back({agent, count, 0});
  saveLedger(kRelayFaultsLedger, entries);
  return lines;
}

void Coordinator::saveLedger(const std::string& ledger, const std::vector<StoredLedgerEntry>& entries) {
  if (auto saved = store_.saveLedger(ledger, entries); !saved)
    spdlog::error("keeping the {} ledger in state.db: {}", ledger, saved.error().message);
}

Result<void> Coordinator::persist() {
  std::vector<StoredAgent> rows;
  std::map<std::string, TimePoint> saved;
  for (const AgentRecord& r : table_.snapshot()) {
    auto last = lastSeenSaved_.find(r.name);
    const bool stale = last == lastSeenSaved_.end() || r.lastHeard - last->second >= kLastSeenEvery;
    if (!stale && !changed_.count(r.name)) continue;
    rows.push_back({r.name, r.site, r.hasRates, r.rates, wallOf(clock_, r.ratesAt), wallOf(clock_, r.lastHeard)});
    saved[r.name] = r.lastHeard;
  }
  if (auto written = store_.saveAgents(rows); !written) return written;  // everything stays pending
  changed_.clear();
  for (auto& [name, at] : saved) lastSeenSaved_[name] = at;
  return links_.persist(store_);
}

SessionId Coordinator::attach(AgentRegistration registration, std::unique_ptr<AgentLink> link) {
  const SessionId session = nextSession_++;
  Agent& agent = agents_[registration.name];
  const bool replaced = agent.session != 0;
  // An agent's process that logs back in to this instance kept its transfers
  // and reports them again (agent_runtime.cc); any other comes empty-handed.
  const bool afresh = registration.keptInstance != instance_;
  if (replaced) sessions_.erase(agent.session);
  table_.registerAgent(registration.name, registration.site);
  sessions_[session] = &agent;
  agent.registration = std::move(registration);
  agent.session = session;
  ++agent.logins;
  agent.link = std::move(link);
  changed_.insert(agent.registration.name);
  relays_.registered(agent.registration.name, agent.registration.dataAddress);
  agent.backAfresh = afresh;
  // Without this, a send would learn of an agent that restarted before its
  // old TCP connection was seen to end (a reboot leaves it half-open) only
  // when the agent's children time out on it, and would never order its
  // copy again.
  if (afresh && replaced) {
    spdlog::warn("agent {} logged in again, keeping nothing of what it ran under its earlier session, which "
                 "hnowd still held: that session's transfers are gone",
                 agent.registration.name);
    for (TransferObserver* o : observers_) o->agentGone(agent.registration.name);
  }
  return session;
}

// Not at attach: the agent drops what it held for an earlier hnowd when it
// reads its login's answer (agent_runtime.cc), and an order that reached
// it before that answer would go with it. Its first call on the new
// session comes after (its caps, at once).
void Coordinator::heardOn(Agent& agent) {
  if (!std::exchange(agent.backAfresh, false)) return;
  for (TransferObserver* o : observers_) o->agentBackAfresh(agent.registration.name);
}

Coordinator::Agent* Coordinator::current(SessionId session) {
  auto it = sessions_.find(session);
  return it == sessions_.end() ? nullptr : it->second;
}

bool Coordinator::heartbeat(SessionId session, const std::optional<CounterSample>& counters) {
  Agent* agent = current(session);
  if (!agent || !table_.heartbeat(agent->registration.name)) return false;
  if (counters) links_.counters(agent->registration.name, *counters);
  heardOn(*agent);
  return true;
}

void Coordinator::localCounters(const CounterSample& counters) {
  localSample_ = counters;
  links_.counters(kCoordinatorNode, counters);
}

bool Coordinator::reportRates(SessionId session, const planner::NodeRates& rates, const EmulatedLinks& emulated) {
  Agent* agent = current(session);
  if (!agent || !table_.reportRates(agent->registration.name, rates)) return false;
  links_.emulated(agent->registration.name, emulated);
  changed_.insert(agent->registration.name);
  heardOn(*agent);
  return true;
}

bool Coordinator::reportCaps(SessionId session, const CapsInForce& caps) {
  Agent* agent = current(session);
  if (!agent) return false;
  pacing_.setCaps(agent->registration.name, caps);
  table_.heartbeat(agent->registration.name);
  heardOn(*agent);
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
  for (const LinkChange& c : links_.takeChanges())
    events.push_back({RateEvent::Kind::kDrift, c.link.node, directionName(c.link.direction), c.before, c.after});
  for (TransferObserver* o : observers_)
    for (const RateEvent& e : events) {
      if (e.kind == RateEvent::Kind::kLost) o->agentGone(e.agent);
      if (e.kind == RateEvent::Kind::kDrift) o->ratesDrifted(e, pacing_.planningRates(e.agent));
    }
  return events;
}

void Coordinator::observeTransfers() {
  std::vector<Flow> flows;
  for (const TransferObserver* o : observers_) o->collectFlows(links_.options().window, flows);
  if (flows.empty()) return;
  // Rooms only when some were found: one room has no trunk to judge.
  const AgentRooms rooms = agentRooms(*this);
  links_.observe(std::move(flows), rooms.foundBy.empty() ? std::map<std::string, std::string>{} : rooms.roomOf);
}

bool Coordinator::moving() const {
  for (const TransferObserver* o : observers_)
    if (o->moving()) return true;
  return false;
}

bool Coordinator::reportTransfer(SessionId session, const std::string& token,
                                 const TransferReport& report) {
  Agent* agent = current(session);
  if (!agent) return false;
  // Any sign of life counts, not heartbeats alone: they may queue behind data.
  table_.heartbeat(agent->registration.name);
  heardOn(*agent);
  if (report.corruptChunks > 0) {
    // A new agent process reports from 0 again: all of its count is new.
    std::uint64_t& seen = corruptSeen_[{agent->registration.name, token}];
    counts_.corruptChunks += report.corruptChunks >= seen ? report.corruptChunks - seen : report.corruptChunks;
    seen = report.corruptChunks;
  }
  if (auto owner = owners_.find(token); owner != owners_.end())
    owner->second->transferReport(agent->registration.name, token, report);
  return true;
}

void Coordinator::releaseToken(const std::string& token) {
  owners_.erase(token);
  std::erase_if(corruptSeen_, [&token](const auto& entry) { return entry.first.second == token; });
}

void Coordinator::removeTransferObserver(TransferObserver* observer) {
  std::erase(observers_, observer);
  std::erase_if(owners_, [observer](const auto& entry) { return entry.second == observer; });
}

AgentLink* Coordinator::link(const std::string& name) {
  auto it = agents_.find(name);
  return it == agents_.end() ? nullptr : it->second.link.get();
}

const AgentRegistration* Coordinator::registration(const std::string& name) const {
  auto it = agents_.find(name);
  return it == agents_.end() ? nullptr : &it->second.registration;
}

std::uint64_t Coordinator::logins(const std::string& name) const {
  auto it = agents_.find(name);
  return it == agents_.end() ? 0 : it->second.logins;
}

std::vector<AgentView> Coordinator::status() const {
  std::vector<AgentView> out;
  const TimePoint now = clock_.now();
  for (const AgentRecord& record : table_.snapshot()) {
    AgentView view;
    view.record = record;
    view.record.rates = pacing_.planningRates(record.name);
    view.links = links_.of(record.name);
    view.caps = pacing_.capsOf(record.name);
    if (auto it = agents_.find(record.name); it != agents_.end()) {
      view.registration = it->second.registration;
      view.connected = it->second.session != 0;
      view.logins = it->second.logins;
    }
    if (record.hasRates) view.ratesAgeSeconds = seconds(now - record.ratesAt);
    view.relayFaults = relays_.suspects().faults(record.name);
    view.reachability = relays_.reachability().view(record.name);
    out.push_back(std::move(view));
  }
  return out;
}

Result<void> Coordinator::setEmulatedRates(const std::string& name, const EmulatedRates& rates) {
  auto it = agents_.find(name);
  if (it == agents_.end()) return Error{"no agent named '" + name + "' has registered"};
  if (!it->second.link) return Error{"agent '" + name + "' is not connected"};
  const std::string summary = "{\"agent\":" + jsonString(name) +
                              ",\"uplink_mbps\":" + std::to_string(rates.uplinkMbps) +
                              ",\"downlink_mbps\":" + std::to_string(rates.downlinkMbps) +
                              ",\"compute_factor\":" + std::to_string(rates.computeFactor);
  // Unrecorded when the store fails: the rates are set all the same.
  const Result<OperationId> id = operations_.begin("set-rate", summary + "}");
  it->second.link->setEmulatedRates(rates, [this, id, summary](const Result<void>& done) {
    if (!id) return;
    if (done)
      (void)operations_.finish(*id, "done", summary + "}");
    else
      (void)operations_.finish(*id, "failed", summary + ",\"error\":" + jsonString(done.error().message) + "}");
  });
  return {};
}

std::size_t Coordinator::connectedCount() const { return sessions_.size(); }

Result<void> Coordinator::forget(const std::string& name) {
  auto it = agents_.find(name);
  if (it == agents_.end() && !table_.find(name)) return Error{"no agent named '" + name + "' is known"};
  if (it != agents_.end() && it->second.session != 0)
    return Error{"agent '" + name + "' is connected; stop its hnow-agent first, or it registers again"};
  // The store first: an agent forgotten here but not there would come back at the next start.
  if (auto removed = store_.forgetAgent(name); !removed) return removed.error();
  if (it != agents_.end()) agents_.erase(it);
  table_.forget(name);
  links_.forget(name);
  pacing_.forget(name);
  relays_.forget(name);
  changed_.erase(name);
  lastSeenSaved_.erase(name);
  spdlog::info("forgot agent {}: its record, rates and links", name);
  const std::string summary = "{\"agent\":" + jsonString(name) + "}";
  if (auto id = operations_.begin("forget", summary)) (void)operations_.finish(*id, "done", summary);
  return {};
}

}  // namespace hnow::daemon
