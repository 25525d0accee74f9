#include "core/coordinator.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <random>

#include "core/links/rooms.h"
#include "core/links/trunk_verdict.h"

namespace hnow::daemon {

namespace {

LinkOptions linkOptionsFrom(const RateTableOptions& o) {
  LinkOptions links;
  links.book.driftThreshold = o.driftThreshold;
  links.book.dwell = o.driftDwell;
  links.book.ewmaWeight = o.ewmaWeight;
  return links;
}

std::optional<RateMethod> storedMethod(const std::string& name) {
  for (RateMethod m : {RateMethod::kProbe, RateMethod::kPassive, RateMethod::kBound})
    if (name == rateMethodName(m)) return m;
  return std::nullopt;
}

}  // namespace

Coordinator::Coordinator(const Clock& clock, RateTableOptions options, StateStore& store,
                         std::optional<LinkOptions> links)
    : clock_(clock), table_(clock, options), linkOptions_(links ? *links : linkOptionsFrom(options)),
      links_(clock, linkOptions_.book), pacing_(links_, table_), store_(store), operations_(clock, store), instance_([] {
        std::random_device random;
        // Never 0: an agent takes 0 as "no instance" (an hnowd that does not say).
        return ((std::uint64_t{random()} << 32) | random()) | 1;
      }()) {}

WallTime Coordinator::wallOf(TimePoint t) const { return clock_.wallNow() - (clock_.now() - t); }
TimePoint Coordinator::steadyOf(WallTime t) const { return clock_.now() - (clock_.wallNow() - t); }

Result<void> Coordinator::restore() {
  auto agents = store_.loadAgents();
  if (!agents) return agents.error();
  for (const StoredAgent& stored : *agents) {
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
  auto links = store_.loadLinks();
  if (!links) return links.error();
  for (const StoredLink& stored : *links) {
    auto method = storedMethod(stored.method);
    if (!method || (stored.direction != "uplink" && stored.direction != "downlink")) continue;
    const LinkId link{stored.node, stored.direction == "uplink" ? LinkDirection::kUp : LinkDirection::kDown};
    const TimePoint at = steadyOf(stored.measuredAt);
    links_.restore(link, {stored.bytesPerSecond, *method, at, stored.spread});
    linksSaved_[link] = at;
  }
  // What the previous hnowd was doing when it stopped did not finish here:
  // say so rather than show it running forever (`hnow ops`).
  auto interrupted = store_.interruptRunning(clock_.wallNow());
  if (!interrupted) return interrupted.error();
  interruptedAtStart_ = *interrupted;
  return {};
}

Result<void> Coordinator::persist() {
  std::vector<StoredAgent> rows;
  std::map<std::string, TimePoint> saved;
  for (const AgentRecord& r : table_.snapshot()) {
    auto last = lastSeenSaved_.find(r.name);
    const bool stale = last == lastSeenSaved_.end() || r.lastHeard - last->second >= kLastSeenEvery;
    if (!stale && !changed_.count(r.name)) continue;
    rows.push_back({r.name, r.site, r.hasRates, r.rates, wallOf(r.ratesAt), wallOf(r.lastHeard)});
    saved[r.name] = r.lastHeard;
  }
  if (auto written = store_.saveAgents(rows); !written) return written;  // everything stays pending
  changed_.clear();
  for (auto& [name, at] : saved) lastSeenSaved_[name] = at;
  return persistLinks();
}

Result<void> Coordinator::persistLinks() {
  std::vector<StoredLink> rows;
  std::map<LinkId, TimePoint> saved;
  for (const auto& [link, rate] : links_.measured()) {
    auto last = linksSaved_.find(link);
    if (last != linksSaved_.end() && last->second == rate.at) continue;
    rows.push_back({link.node, directionName(link.direction), rate.bytesPerSecond, rateMethodName(rate.method),
                    wallOf(rate.at), rate.spread});
    saved[link] = rate.at;
  }
  if (auto written = store_.saveLinks(rows); !written) return written;
  for (auto& [link, at] : saved) linksSaved_[link] = at;
  return {};
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
  const std::string& name = agent.registration.name;
  const std::string& address = agent.registration.dataAddress;
  if (reachProbe_ && !address.empty() && reach_.needsCheck(name, address))
    reachProbe_->check(address, [this, name, address](Result<void> outcome) {
      const bool was = reach_.reachable(name);
      reach_.checked(name, address, outcome);
      if (was && !reach_.reachable(name)) spdlog::warn("agent {}: {}", name, reach_.view(name).note);
      if (!was && reach_.reachable(name)) spdlog::info("agent {} accepts connections at {} again", name, address);
    });
  return session;
}

Coordinator::Agent* Coordinator::current(SessionId session) {
  auto it = sessions_.find(session);
  return it == sessions_.end() ? nullptr : it->second;
}

bool Coordinator::heartbeat(SessionId session, const std::optional<CounterSample>& counters) {
  Agent* agent = current(session);
  if (!agent || !table_.heartbeat(agent->registration.name)) return false;
  if (counters) addCounters(agent->registration.name, *counters);
  return true;
}

void Coordinator::localCounters(const CounterSample& counters) { addCounters(kCoordinatorNode, counters); }

// Other traffic is what a plan made now must leave room for: it is taken
// from the latest interval alone, so traffic that stopped frees the link
// within a heartbeat.
void Coordinator::addCounters(const std::string& node, const CounterSample& counters) {
  loads_.add(node, clock_.now(), counters);
  if (auto now = loads_.latest(node)) links_.noteForeign(node, now->foreignSent, now->foreignReceived);
}

bool Coordinator::reportRates(SessionId session, const planner::NodeRates& rates, const EmulatedLinks& emulated) {
  Agent* agent = current(session);
  if (!agent || !table_.reportRates(agent->registration.name, rates)) return false;
  const std::string& name = agent->registration.name;
  for (auto [direction, paced] : {std::pair{LinkDirection::kUp, emulated.uplinkBytesPerSecond},
                                  std::pair{LinkDirection::kDown, emulated.downlinkBytesPerSecond}}) {
    if (paced > 0 && !linkOptions_.measureEmulated) links_.setFixed({name, direction}, paced, RateMethod::kEmulated);
    else links_.clearFixed({name, direction});
  }
  changed_.insert(name);
  return true;
}

bool Coordinator::reportCaps(SessionId session, const CapsInForce& caps) {
  Agent* agent = current(session);
  if (!agent) return false;
  pacing_.setCaps(agent->registration.name, caps);
  table_.heartbeat(agent->registration.name);
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
  std::vector<LinkChange> changes = links_.takeChanges();
  changes.insert(changes.end(), trunkNews_.begin(), trunkNews_.end());
  trunkNews_.clear();
  for (const LinkChange& c : changes)
    events.push_back({RateEvent::Kind::kDrift, c.link.node, directionName(c.link.direction), c.before, c.after});
  for (TransferObserver* o : observers_)
    for (const RateEvent& e : events) {
      if (e.kind == RateEvent::Kind::kLost) o->agentGone(e.agent);
      if (e.kind == RateEvent::Kind::kDrift) o->ratesDrifted(e, pacing_.planningRates(e.agent));
    }
  return events;
}

void Coordinator::observeTransfers() {
  const TimePoint now = clock_.now();
  const Duration window = linkOptions_.window;
  std::map<std::string, NodeLoad> loads;
  for (const std::string& node : loads_.nodes()) {
    if (auto load = loads_.over(node, now - window, now)) loads[node] = *load;
  }
  std::vector<Flow> flows;
  for (const TransferObserver* o : observers_) o->collectFlows(window, flows);
  // A flow is judged by both ends' loads: without one, it says nothing.
  std::erase_if(flows, [&](const Flow& f) { return !loads.count(f.from) || !loads.count(f.to); });
  if (flows.empty()) return;
  const KnownRate known = [this](const LinkId& l) { return links_.knownAtLeast(l); };
  flows = judgeTrunkFlows(std::move(flows), loads, known);
  links_.observe(judgeFlows(flows, loads, known, linkOptions_.verdict));
}

std::vector<Flow> Coordinator::judgeTrunkFlows(std::vector<Flow> flows, const std::map<std::string, NodeLoad>& loads,
                                               const KnownRate& known) {
  const AgentRooms rooms = agentRooms(*this);
  if (rooms.foundBy.empty()) return flows;
  // Agents that pace both their links (hnow local) share no real trunk:
  // their flows are the end links' to judge.
  auto paced = [this](const std::string& node) { return node != kCoordinatorNode && links_.pacesBoth(node); };
  std::vector<Flow> across, rest;
  for (Flow& f : flows) (paced(f.from) || paced(f.to) ? rest : across).push_back(std::move(f));
  TrunkVerdict verdict = judgeTrunks(across, loads, rooms.roomOf, known, linkOptions_.verdict);
  std::map<LinkId, double> before;
  for (const LinkReading& r : verdict.readings) before[r.link] = links_.knownAtLeast(r.link);
  links_.observe(verdict.readings);
  // A trunk first known while data crosses it: plans made without it change.
  for (const auto& [link, was] : before)
    if (was <= 0.0 && links_.rate(link) && !links_.rate(link)->bound())
      trunkNews_.push_back({link, 0.0, links_.knownAtLeast(link)});
  rest.insert(rest.end(), verdict.rest.begin(), verdict.rest.end());
  return rest;
}

bool Coordinator::moving() const {
  for (const TransferObserver* o : observers_)
    if (o->moving()) return true;
  return false;
}

LinkView Coordinator::linkView(const std::string& node, LinkDirection direction) const {
  const LinkId link{node, direction};
  LinkView view;
  if (const LinkRate* r = links_.rate(link)) {
    view.rate = *r;
    view.ageSeconds = seconds(clock_.now() - r->at);
  }
  view.foreign = links_.foreign(link);
  view.available = links_.available(link);
  view.samples = links_.samples(link);
  return view;
}

NodeLinks Coordinator::coordinatorLinks() const {
  return {linkView(kCoordinatorNode, LinkDirection::kUp), linkView(kCoordinatorNode, LinkDirection::kDown)};
}

bool Coordinator::reportTransfer(SessionId session, const std::string& token,
                                 const TransferReport& report) {
  Agent* agent = current(session);
  if (!agent) return false;
  // Any sign of life counts, not heartbeats alone: they may queue behind data.
  table_.heartbeat(agent->registration.name);
  if (auto owner = owners_.find(token); owner != owners_.end())
    owner->second->transferReport(agent->registration.name, token, report);
  return true;
}

void Coordinator::removeTransferObserver(TransferObserver* observer) {
  std::erase(observers_, observer);
  std::erase_if(owners_, [observer](const auto& entry) { return entry.second == observer; });
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
    view.record.rates = pacing_.planningRates(record.name);
    view.links = {linkView(record.name, LinkDirection::kUp), linkView(record.name, LinkDirection::kDown)};
    view.caps = pacing_.capsOf(record.name);
    if (auto it = agents_.find(record.name); it != agents_.end()) {
      view.registration = it->second.registration;
      view.connected = it->second.session != 0;
    }
    if (record.hasRates) view.ratesAgeSeconds = seconds(now - record.ratesAt);
    view.relayFaults = suspects_.faults(record.name);
    view.reachability = reach_.view(record.name);
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
  loads_.forget(name);
  suspects_.forget(name);
  reach_.forget(name);
  changed_.erase(name);
  lastSeenSaved_.erase(name);
  for (LinkDirection d : {LinkDirection::kUp, LinkDirection::kDown}) linksSaved_.erase({name, d});
  spdlog::info("forgot agent {}: its record, rates and links", name);
  const std::string summary = "{\"agent\":" + jsonString(name) + "}";
  if (auto id = operations_.begin("forget", summary)) (void)operations_.finish(*id, "done", summary);
  return {};
}

}  // namespace hnow::daemon
