#include "core/links/rooms.h"

#include <algorithm>
#include <set>

#include "core/links/trunk_survey.h"

namespace hnow::daemon {

AgentRooms agentRooms(const std::vector<AgentView>& agents, const RoomMember& coordinator,
                      const std::map<std::string, std::string>& measured) {
  std::vector<RoomMember> members;
  for (const AgentView& a : agents)
    members.push_back({a.record.name, a.record.site, a.registration.networks, a.registration.gateway,
                       a.registration.dataAddress});
  RoomAssignment assigned = assignRooms(coordinator, members);
  const bool placed = !measured.empty() && std::all_of(agents.begin(), agents.end(), [&](const AgentView& a) {
    return measured.count(a.record.name) > 0;
  });
  if (assigned.how == "one room" && placed) assigned = {measured, "measurement"};
  AgentRooms rooms;
  if (assigned.how == "one room") {
    for (const AgentView& a : agents) rooms.roomOf[a.record.name] = a.record.site;
    return rooms;
  }
  rooms.foundBy = assigned.how;
  rooms.roomOf = assigned.roomOf;
  auto own = assigned.roomOf.find(coordinator.name);
  if (own != assigned.roomOf.end())
    for (const AgentView& a : agents)
      if (assigned.roomOf.at(a.record.name) == own->second) rooms.coordinatorRoom = own->second;
  for (const AgentView& a : agents) rooms.roomOf.try_emplace(a.record.name, a.record.site);
  return rooms;
}

AgentRooms agentRooms(const Coordinator& coordinator) {
  return agentRooms(coordinator.status(), coordinator.linkKnowledge().ownNetworks(), coordinator.linkKnowledge().measuredRooms());
}

std::vector<RoomView> roomViews(const Coordinator& coordinator) {
  const std::vector<AgentView> agents = coordinator.status();
  const AgentRooms rooms = agentRooms(agents, coordinator.linkKnowledge().ownNetworks(), coordinator.linkKnowledge().measuredRooms());
  if (rooms.foundBy.empty()) return {};
  std::map<std::string, int> count;
  for (const AgentView& a : agents) ++count[rooms.roomOf.at(a.record.name)];
  std::vector<RoomView> out;
  for (const auto& [room, n] : count) {
    RoomView view{room, n, rooms.foundBy, {}, {}};
    view.in = coordinator.linkKnowledge().view(trunkLink(room, LinkDirection::kDown).node, LinkDirection::kDown);
    view.out = coordinator.linkKnowledge().view(trunkLink(room, LinkDirection::kUp).node, LinkDirection::kUp);
    out.push_back(std::move(view));
  }
  return out;
}

void placeInRooms(std::vector<TreeNode>& nodes, std::size_t first, const Coordinator& coordinator) {
  const AgentRooms rooms = agentRooms(coordinator);
  const LinkBook& book = coordinator.links();
  if (first == 1 && !nodes.empty()) nodes[0].site = rooms.foundBy.empty() ? "" : rooms.coordinatorRoom;
  std::map<std::string, bool> paced;
  for (std::size_t i = first; i < nodes.size(); ++i) {
    if (!rooms.foundBy.empty()) {
      auto room = rooms.roomOf.find(nodes[i].name);
      if (room != rooms.roomOf.end()) nodes[i].site = room->second;
      nodes[i].roomTrunk = knownTrunk(book, nodes[i].site);
    }
    paced.try_emplace(nodes[i].site, true).first->second &= book.pacesBoth(nodes[i].name);
  }
  for (std::size_t i = first; i < nodes.size(); ++i)
    if (paced[nodes[i].site]) nodes[i].roomTrunk = {planner::Trunk::kNoLimit, planner::Trunk::kNoLimit};
}

}  // namespace hnow::daemon
