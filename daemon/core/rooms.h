#pragma once
// The rooms hnowd plans, surveys and shows with (docs/rooms.md): which
// agents share a switch behind one trunk, and what is known of each
// trunk. One function decides the rooms, so plans, trunk surveys and
// `hnow status` always agree on them.
#include <map>
#include <string>
#include <vector>

#include "core/coordinator.h"

namespace hnow::daemon {

struct AgentRooms {
  std::map<std::string, std::string> roomOf;  // agent name -> room; hnowd is in none
  std::string foundBy;                        // "site labels", or "" (one room: none to show)
};

// Agents' site labels, when they carry two or more; else one room.
AgentRooms agentRooms(const std::vector<AgentView>& agents);

struct RoomView {
  std::string name;
  int agents = 0;
  std::string foundBy;
  LinkView in, out;  // the trunk into the room and out of it
};

// Each room with its trunk as the link book knows it; none for one room.
std::vector<RoomView> roomViews(const Coordinator& coordinator);

}  // namespace hnow::daemon
