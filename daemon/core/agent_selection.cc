#include "core/agent_selection.h"

namespace hnow::daemon {

bool reachable(const AgentView& agent) {
  return agent.connected && agent.record.state == AgentState::kAlive && !agent.registration.dataAddress.empty();
}

Result<std::vector<AgentView>> selectAgents(std::vector<AgentView> candidates, const std::vector<std::string>& to,
                                            const std::string& unmatched) {
  const bool all = to.empty() || (to.size() == 1 && to[0] == "all");
  std::vector<bool> matched(to.size(), false);
  std::vector<AgentView> chosen;
  for (AgentView& a : candidates) {
    bool wanted = all;
    for (std::size_t i = 0; i < to.size(); ++i)
      if (to[i] == a.record.name || to[i] == a.record.site) wanted = matched[i] = true;
    if (wanted) chosen.push_back(std::move(a));
  }
  if (!all)
    for (std::size_t i = 0; i < to.size(); ++i)
      if (!matched[i]) return Error{"no alive agent or site named '" + to[i] + "'" + unmatched};
  return chosen;
}

Result<void> checkDestination(const std::string& dest, const std::string& option) {
  if (dest.empty()) return Error{option + " is empty"};
  std::string part;
  for (char c : dest + "/") {
    if (c != '/') {
      part += c;
      continue;
    }
    if (part == "..") return Error{"'..' is not allowed in " + option + " (" + dest + ")"};
    part.clear();
  }
  return {};
}

}  // namespace hnow::daemon
