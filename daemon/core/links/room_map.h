#pragma once
// Which room each node sits in, from what hnowd learns of the network
// (planner/site_links.h: a room is the nodes behind one trunk). Hosts on
// different subnets talk through a router, so they are in different rooms;
// site labels in the agents' configs say more when an operator set them,
// and win. Pure: values in, values out.
#include <map>
#include <string>
#include <vector>

namespace hnow::daemon {

// A node as registered (core/agent_link.h AgentRegistration), or hnowd
// itself with its own networks (base/host_networks.h).
struct RoomMember {
  std::string name;
  std::string site;                   // "" or "default": no label
  std::vector<std::string> networks;  // "10.1.2.3/26" each; none from an older agent
  // Not used to group: hosts of one subnet with different gateways still
  // reach each other directly, without a router between them.
  std::string gateway;
  std::string dataAddress;  // "host:port" or "[v6]:port"; "" when none
};

struct RoomAssignment {
  std::map<std::string, std::string> roomOf;  // node name -> room name, hnowd's too
  std::string how;                            // "site labels" | "subnets" | "one room"
};

// The room of every node when nothing tells rooms apart.
inline constexpr const char* kOneRoom = "default";

// The subnet a member sits in, as CIDR ("10.231.5.64/26"): that of the
// network holding its data address's host (the one its peers reach), else
// of its first network; "" when none parses.
std::string subnetOfMember(const RoomMember& member);

// Two or more distinct site labels among the agents (not "default"): the
// labels are the rooms, hnowd in the one label's room that shares its
// subnet, else a room "hnowd" of its own; an unlabelled agent likewise in
// the one label's room that shares its subnet, else in hnowd's room when on
// hnowd's subnet or without networks, else in its subnet's room.
// Otherwise, two or more distinct subnets among hnowd and the agents: the
// subnets are the rooms, named by their CIDR; hnowd's is its own (or
// "unknown" when it has no networks), and an agent without networks (an
// older agent) is put in hnowd's.
// Otherwise every node is in kOneRoom.
// `coordinator` is hnowd itself (name "hnowd").
RoomAssignment assignRooms(const RoomMember& coordinator, const std::vector<RoomMember>& agents);

}  // namespace hnow::daemon
