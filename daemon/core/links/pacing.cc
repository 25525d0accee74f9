#include "core/links/pacing.h"

#include <algorithm>

namespace hnow::daemon {

namespace {

// A capacity hnowd measured: paced a little under while data moves.
bool measuredCapacity(const LinkBook& links, const LinkId& link) {
  const LinkRate* rate = links.rate(link);
  return rate && !rate->bound() && !links.fixed(link);
}

}  // namespace

NodeCaps Pacing::capsOf(const std::string& node, double uplinkCapacity) const {
  auto it = caps_.find(node);
  if (it == caps_.end()) return {};
  auto one = [&](const DirectionCap& cap, LinkDirection direction, double fallback, std::string_view key) {
    const LinkRate* rate = links_.rate({node, direction});
    const double capacity = rate && !rate->bound() ? rate->bytesPerSecond : fallback;
    return CapView{cap.bytesPerSecond(capacity), cap.source(capacity, key)};
  };
  return {one(it->second.up, LinkDirection::kUp, uplinkCapacity, "max_uplink_mbps"),
          one(it->second.down, LinkDirection::kDown, 0.0, "max_downlink_mbps")};
}

double Pacing::capPacedByNode(const LinkId& link) const {
  if (link.node == kCoordinatorNode) {
    const NodeCaps own = coordinatorCaps();
    return (link.direction == LinkDirection::kUp ? own.up : own.down).bytesPerSecond;
  }
  auto it = caps_.find(link.node);
  if (it == caps_.end()) return 0.0;
  return (link.direction == LinkDirection::kUp ? it->second.up : it->second.down).absoluteBytesPerSecond();
}

// hnowd's uplink as below, within its cap in force.
SourceUplink Pacing::sourceUplink(double configured) const {
  const SourceUplink source = uncappedSourceUplink(configured);
  const double cap = capsOf(kCoordinatorNode, configured).up.bytesPerSecond;
  return {capped(source.plan, cap), capped(source.pace, cap)};
}

SourceUplink Pacing::uncappedSourceUplink(double configured) const {
  const LinkId up{kCoordinatorNode, LinkDirection::kUp};
  if (configured > 0 && !links_.rate(up)) return {configured, configured};
  if (const LinkRate* rate = links_.rate(up)) {
    if (configured > 0 || rate->bound()) return {links_.available(up), configured};
    const double paced = kUplinkPacing * links_.available(up);
    return {paced, paced};
  }
  double fastest = 0.0;
  for (const AgentRecord& r : table_.snapshot()) fastest = std::max(fastest, links_.available({r.name, LinkDirection::kUp}));
  return {fastest, fastest};
}

SourceUplink Pacing::paceSource(double configured) {
  const SourceUplink source = sourceUplink(configured);
  if (configured <= 0 && source.pace > 0 && links_.rate({kCoordinatorNode, LinkDirection::kUp})) {
    links_.pace({kCoordinatorNode, LinkDirection::kUp}, source.pace);
    sourcePaced_ = true;
  }
  return source;
}

double Pacing::agentUplinkPace(const std::string& agent) const {
  const LinkId up{agent, LinkDirection::kUp};
  const double pace = measuredCapacity(links_, up) ? kUplinkPacing * links_.available(up) : 0.0;
  return capped(pace, capsOf(agent).up.bytesPerSecond);
}

// A capped link carries its cap, not its capacity: while a send runs,
// readings near the cap are the pacing's, not a slower link.
void Pacing::paceAgentUplinks(const std::vector<std::string>& agents) {
  for (const std::string& agent : agents) {
    const double pace = agentUplinkPace(agent), down = agentDownlinkPace(agent);
    if (pace <= 0 && down <= 0) continue;
    if (pace > 0) links_.pace({agent, LinkDirection::kUp}, pace);
    if (down > 0) links_.pace({agent, LinkDirection::kDown}, down);
    pacedAgents_.insert(agent);
  }
}

bool Pacing::sourceIdle() {
  for (const std::string& agent : pacedAgents_) {
    links_.pace({agent, LinkDirection::kUp}, 0.0);
    links_.pace({agent, LinkDirection::kDown}, 0.0);
  }
  pacedAgents_.clear();
  if (!sourcePaced_) return false;
  links_.pace({kCoordinatorNode, LinkDirection::kUp}, 0.0);
  sourcePaced_ = false;
  return true;
}

planner::NodeRates Pacing::planningRates(const std::string& node) const {
  planner::NodeRates rates;
  if (const AgentRecord* r = table_.find(node)) rates = r->rates;
  // Planned as a send will pace it, within the node's caps.
  const double pace = agentUplinkPace(node);
  rates.uplinkBytesPerSecond = capped(links_.available({node, LinkDirection::kUp}), pace);
  rates.downlinkBytesPerSecond = capped(links_.available({node, LinkDirection::kDown}), agentDownlinkPace(node));
  return rates;
}

}  // namespace hnow::daemon
