#pragma once
// The rooms hnowd plans, surveys and shows with (docs/rooms.md): which
// nodes share a switch behind one trunk, and what is known of each trunk.
// One function decides the rooms (room_map.h: site labels, else subnets),
// so plans, trunk surveys, passive verdicts and `hnow status` agree.
#include <map>
#include <string>
#include <vector>

#include "core/coordinator.h"
#include "core/links/room_map.h"
#include "core/send/send_tree.h"

namespace hnow::daemon {

struct AgentRooms {
  std::map<std::string, std::string> roomOf;  // every agent's room, and hnowd's
  std::string foundBy;                        // "site labels", "subnets", "measurement"; "" for one room
  // hnowd's room when agents share it; "" when it is in a room of its own.
  std::string coordinatorRoom;
};

// assignRooms over the agents' registrations and `coordinator` (hnowd's
// own networks); where that finds one room, the rooms `measured` found
// (room_discovery.h) when they place every agent; else one room, every
// agent's room its site label, so LCF and the surveys see the labels they
// always saw.
AgentRooms agentRooms(const std::vector<AgentView>& agents, const RoomMember& coordinator,
                      const std::map<std::string, std::string>& measured = {});
AgentRooms agentRooms(const Coordinator& coordinator);

struct RoomView {
  std::string name;
  int agents = 0;
  std::string foundBy;
  LinkView in, out;  // the trunk into the room and out of it
};

// Gives every agent in nodes[first..] its room as its site and the room's
// trunk as plans take it (knownTrunk); with `first` 1, nodes[0] is hnowd,
// placed in the room it shares with agents. With one room each keeps its
// site label. A room whose agents all pace both their links (hnow local)
// has no real trunk: its label groups, nothing limits it (siteLinksOf would
// take it at its fastest port).
void placeInRooms(std::vector<TreeNode>& nodes, std::size_t first, const Coordinator& coordinator);

// Each room of agents with its trunk as the link book knows it; none for one room.
std::vector<RoomView> roomViews(const Coordinator& coordinator);

}  // namespace hnow::daemon
