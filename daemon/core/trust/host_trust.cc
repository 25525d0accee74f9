#include "core/trust/host_trust.h"

namespace hnow::daemon {

bool HostTrust::trusted(const std::string& agent) const { return streak(agent) >= options_.trustAfter; }

bool HostTrust::needsCheck(const std::string& agent) {
  if (!trusted(agent)) return true;
  return uniform_() < options_.recheck;
}

void HostTrust::agreed(const std::string& agent) { ++records_[agent].streak; }

void HostTrust::overruled(const std::string& agent) {
  Record& r = records_[agent];
  r.streak = 0;
  ++r.overruled;
}

int HostTrust::streak(const std::string& agent) const {
  auto it = records_.find(agent);
  return it == records_.end() ? 0 : it->second.streak;
}

int HostTrust::overrulings(const std::string& agent) const {
  auto it = records_.find(agent);
  return it == records_.end() ? 0 : it->second.overruled;
}

std::vector<HostTrust::Line> HostTrust::ledger() const {
  std::vector<Line> out;
  for (const auto& [agent, r] : records_) out.push_back({agent, r.streak, r.overruled});
  return out;
}

void HostTrust::restore(const std::vector<Line>& lines) {
  records_.clear();
  for (const Line& l : lines) records_[l.agent] = {l.streak, l.overruled};
}

}  // namespace hnow::daemon
