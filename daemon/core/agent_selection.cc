#include "core/agent_selection.h"

#include <cstdio>

#include "base/printable.h"

namespace hnow::daemon {

bool canTakePart(const AgentView& agent) {
  return agent.connected && agent.record.state == AgentState::kAlive && !agent.registration.dataAddress.empty();
}

namespace {

bool everyAgent(const std::vector<std::string>& to) { return to.empty() || (to.size() == 1 && to[0] == "all"); }

bool names(const std::string& entry, const AgentView& agent) {
  return entry == agent.record.name || entry == agent.record.site;
}

}  // namespace

bool wantedBy(const AgentView& agent, const std::vector<std::string>& to) {
  if (everyAgent(to)) return true;
  for (const std::string& entry : to)
    if (names(entry, agent)) return true;
  return false;
}

Result<std::vector<AgentView>> selectAgents(std::vector<AgentView> candidates, const std::vector<std::string>& to,
                                            const std::string& unmatched) {
  const bool all = everyAgent(to);
  std::vector<bool> matched(to.size(), false);
  std::vector<AgentView> chosen;
  for (AgentView& a : candidates) {
    for (std::size_t i = 0; i < to.size(); ++i)
      if (names(to[i], a)) matched[i] = true;
    if (wantedBy(a, to)) chosen.push_back(std::move(a));
  }
  if (!all)
    for (std::size_t i = 0; i < to.size(); ++i)
      if (!matched[i]) return Error{"no alive agent or site named '" + to[i] + "'" + unmatched};
  return chosen;
}

Result<void> checkDestination(const std::string& dest, const std::string& option) {
  if (dest.empty()) return Error{option + " is empty"};
  // A destination goes into logs, reports and the status table: a newline
  // there would forge a log line of its own, or break the table.
  if (dest.size() > kMaxDestBytes)
    return Error{option + " is " + std::to_string(dest.size()) + " bytes long: at most " +
                 std::to_string(kMaxDestBytes) + " are allowed"};
  for (char c : dest)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f)
      return Error{"a control character (a newline, a tab, an escape) is not allowed in " + option + " (" +
                   printable(dest) + ")"};
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

namespace {

std::string agoText(double seconds) {
  char text[48];
  if (seconds < 120) std::snprintf(text, sizeof text, "%.0f s ago", seconds);
  else if (seconds < 2 * 3600) std::snprintf(text, sizeof text, "%.0f min ago", seconds / 60);
  else if (seconds < 2 * 86400) std::snprintf(text, sizeof text, "%.0f h ago", seconds / 3600);
  else std::snprintf(text, sizeof text, "%.0f days ago", seconds / 86400);
  return text;
}

}  // namespace

std::vector<SkippedAgent> absentWanted(const std::vector<AgentView>& agents, const std::vector<std::string>& to,
                                            TimePoint now) {
  std::vector<SkippedAgent> out;
  for (const AgentView& a : agents) {
    if (canTakePart(a) || !wantedBy(a, to)) continue;
    if (a.record.state == AgentState::kLost)
      out.push_back({a.record.name, "lost, last heard " + agoText(seconds(now - a.record.lastHeard))});
    else if (!a.connected)
      out.push_back({a.record.name, "not connected"});
    else
      out.push_back({a.record.name, "no data address: it cannot receive files"});
  }
  return out;
}

}  // namespace hnow::daemon
