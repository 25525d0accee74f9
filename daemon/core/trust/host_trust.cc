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

}  // namespace hnow::daemon
