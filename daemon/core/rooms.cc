#include "core/rooms.h"

#include <set>

#include "core/trunk_survey.h"

namespace hnow::daemon {

AgentRooms agentRooms(const std::vector<AgentView>& agents) {
  std::set<std::string> labels;
  for (const AgentView& a : agents) labels.insert(a.record.site);
  AgentRooms rooms;
  if (labels.size() < 2) {
    for (const AgentView& a : agents) rooms.roomOf[a.record.name] = "";
    return rooms;
  }
  rooms.foundBy = "site labels";
  for (const AgentView& a : agents) rooms.roomOf[a.record.name] = a.record.site;
  return rooms;
}

std::vector<RoomView> roomViews(const Coordinator& coordinator) {
  const AgentRooms rooms = agentRooms(coordinator.status());
  if (rooms.foundBy.empty()) return {};
  std::map<std::string, int> count;
  for (const auto& [agent, room] : rooms.roomOf) ++count[room];
  std::vector<RoomView> out;
  for (const auto& [room, agents] : count) {
    RoomView view{room, agents, rooms.foundBy, {}, {}};
    view.in = coordinator.linkView(trunkLink(room, LinkDirection::kDown).node, LinkDirection::kDown);
    view.out = coordinator.linkView(trunkLink(room, LinkDirection::kUp).node, LinkDirection::kUp);
    out.push_back(std::move(view));
  }
  return out;
}

}  // namespace hnow::daemon
