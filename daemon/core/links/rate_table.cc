#include "core/links/rate_table.h"

#include <algorithm>
#include <cmath>

namespace hnow::daemon {

RateTable::RateTable(const Clock& clock, RateTableOptions options)
    : clock_(clock), options_(options) {}

void RateTable::restore(AgentRecord record) {
  Entry& entry = agents_[record.name];
  entry.record = std::move(record);
  entry.record.state = AgentState::kLost;
  entry.disconnected = true;
}

void RateTable::registerAgent(const std::string& name, const std::string& site) {
  Entry& entry = agents_[name];
  entry.record.name = name;
  entry.record.site = site;
  // A lost agent that registers again stays lost until the next tick, which
  // reports it back: later issues replan on that event.
  entry.record.lastHeard = clock_.now();
  entry.disconnected = false;
}

void RateTable::disconnected(const std::string& name) {
  if (auto it = agents_.find(name); it != agents_.end()) it->second.disconnected = true;
}

bool RateTable::heartbeat(const std::string& name) {
  auto it = agents_.find(name);
  if (it == agents_.end()) return false;
  it->second.record.lastHeard = clock_.now();
  return true;
}

bool RateTable::reportRates(const std::string& name, const planner::NodeRates& measured) {
  auto it = agents_.find(name);
  if (it == agents_.end()) return false;
  AgentRecord& r = it->second.record;
  r.rates = measured;
  r.hasRates = true;
  r.ratesAt = r.lastHeard = clock_.now();
  return true;
}

void RateTable::watch(Entry& entry, double value, std::vector<RateEvent>& events) {
  if (!(value > 0)) return;
  Watched& w = entry.compute;
  const TimePoint now = clock_.now();
  if (w.baseline <= 0) {
    w.baseline = value;
    return;
  }
  if (std::fabs(value / w.baseline - 1.0) <= options_.driftThreshold) {
    w.outsideSince.reset();  // a blip shorter than the dwell time is not drift
    return;
  }
  if (!w.outsideSince) w.outsideSince = now;
  if (now - *w.outsideSince < options_.driftDwell) return;
  events.push_back({RateEvent::Kind::kDrift, entry.record.name, "compute", w.baseline, value});
  w.baseline = value;  // plans made from now on use the new value
  w.outsideSince.reset();
}

void RateTable::excuse(Duration lag) {
  const TimePoint now = clock_.now();
  for (auto& [name, entry] : agents_) entry.record.lastHeard = std::min(now, entry.record.lastHeard + lag);
}

std::vector<RateEvent> RateTable::tick() {
  std::vector<RateEvent> events;
  const TimePoint now = clock_.now();
  for (auto& [name, entry] : agents_) {
    AgentRecord& r = entry.record;
    const bool silent = entry.disconnected || now - r.lastHeard > options_.lostAfter;
    if (silent && r.state == AgentState::kAlive) {
      r.state = AgentState::kLost;
      events.push_back({RateEvent::Kind::kLost, name, "", 0, 0});
    } else if (!silent && r.state == AgentState::kLost) {
      r.state = AgentState::kAlive;
      events.push_back({RateEvent::Kind::kBack, name, "", 0, 0});
    }
    if (r.state == AgentState::kLost || !r.hasRates) continue;
    // Slower compute is a larger number of seconds per unit: compare rates.
    if (r.rates.computeSecondsPerUnit > 0) watch(entry, 1.0 / r.rates.computeSecondsPerUnit, events);
  }
  return events;
}

std::vector<AgentRecord> RateTable::snapshot() const {
  std::vector<AgentRecord> out;
  for (const auto& [_, entry] : agents_) out.push_back(entry.record);
  return out;
}

const AgentRecord* RateTable::find(const std::string& name) const {
  auto it = agents_.find(name);
  return it == agents_.end() ? nullptr : &it->second.record;
}

}  // namespace hnow::daemon
