#include "core/links/hosts.h"

#include "core/links/host_intake.h"

namespace hnow::daemon {

std::map<std::string, std::string> sharedHosts(const std::vector<AgentView>& agents) {
  std::map<std::string, int> count;
  for (const AgentView& a : agents)
    if (!a.registration.host.empty()) ++count[a.registration.host];
  std::map<std::string, std::string> out;
  for (const AgentView& a : agents)
    if (!a.registration.host.empty() && count[a.registration.host] >= 2) out[a.record.name] = a.registration.host;
  return out;
}

void placeOnHosts(std::vector<TreeNode>& nodes, std::size_t first, const Coordinator& coordinator) {
  const std::map<std::string, std::string> hostOf = sharedHosts(coordinator.status());
  const LinkBook& book = coordinator.links();
  for (std::size_t i = first; i < nodes.size(); ++i) {
    auto it = hostOf.find(nodes[i].name);
    if (it == hostOf.end()) continue;
    nodes[i].host = it->second;
    const LinkRate* intake = book.rate(hostIntakeLink(it->second));
    nodes[i].hostIntakeBytesPerSecond = intake && !intake->bound() ? intake->bytesPerSecond : 0.0;
  }
}

std::vector<LinkReading> learnHostIntake(Coordinator& coordinator, const SendStatus& send) {
  // A re-planned send ran on other trees than the one its plan was for.
  if (!send.finished || send.replans > 0) return {};
  const std::map<std::string, std::string> hostOf = sharedHosts(coordinator.status());
  std::vector<HostCopy> copies;
  for (const CopyStatus& c : send.copies) {
    auto it = hostOf.find(c.node);
    if (it == hostOf.end()) continue;
    const bool whole = c.state == CopyStatus::State::kDone;
    // A copy without a planned finish of its own (a stripe's) was planned
    // to end with the send.
    copies.push_back({it->second, whole ? send.size : c.bytes, whole ? c.heldS : 0.0,
                      c.plannedS > 0.0 ? c.plannedS : send.predictedS});
  }
  std::vector<LinkReading> readings = hostIntakeOfSend(copies);
  for (const LinkReading& r : readings) coordinator.links().adopt(r);
  return readings;
}

std::vector<HostView> hostViews(const Coordinator& coordinator) {
  std::map<std::string, int> count;
  for (const auto& [agent, host] : sharedHosts(coordinator.status())) ++count[host];
  std::vector<HostView> out;
  for (const auto& [host, n] : count)
    out.push_back({host, n, coordinator.linkKnowledge().view(hostIntakeLink(host).node, LinkDirection::kDown)});
  return out;
}

}  // namespace hnow::daemon
