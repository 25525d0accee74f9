#include "core/trust/relay_suspects.h"

namespace hnow::daemon {

void RelaySuspects::planLeaves(std::vector<TreeNode>& nodes) const {
  for (std::size_t i = 1; i < nodes.size(); ++i)
    if (suspect(nodes[i].name)) nodes[i].relays = false;
}

std::vector<std::string> RelaySuspects::caught(const std::string& kind, std::uint64_t id,
                                               const std::vector<RelayFault>& faults) {
  std::vector<std::string> lines;
  for (const RelayFault& f : faults) {
    lines.push_back(relayFaultLine(kind, id, f));
    if (fault(f.relay) == kSuspectFaults) lines.push_back(suspectLine(f.relay, kSuspectFaults));
  }
  return lines;
}

std::string relayFaultLine(const std::string& kind, std::uint64_t id, const RelayFault& fault) {
  return kind + " " + std::to_string(id) + ": " + fault.reporter + " caught " + fault.relay +
         " relaying bytes that differ from the source's at byte " + std::to_string(fault.bytes) + " (" +
         fault.message + "); " + fault.relay + " relays nothing more in this " + kind;
}

std::string suspectLine(const std::string& agent, int faults) {
  return agent + " has relayed bytes that differ from the source's " + std::to_string(faults) +
         " times: it is planned as a leaf (relays nothing) from now on";
}

}  // namespace hnow::daemon
