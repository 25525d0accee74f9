#pragma once
// Finding rooms on one subnet by measurement (docs/rooms.md "Rooms by
// measurement"). Two switches joined by a trunk share one subnet, so
// neither labels nor addresses tell them apart; flows do. Two flows between
// disjoint pairs that together get what one gets alone share a link: in a
// round where every node sends to one other node and receives from
// another, all at once, a pair on one switch moves at what its ends carry,
// while the pairs across the trunk split it among them and each gets less.
// Rounds pair each node, in name order, with the one 1, 2, 4, ... places
// further on, so every node meets nodes near and far; the pairs that ran
// at full speed join their nodes in one room. Pure: values in, values out.
#include <map>
#include <string>
#include <vector>

#include "core/links/link_survey.h"

namespace hnow::daemon {

struct DiscoveryOptions {
  // A pair under (1 - headroom) of what its ends carry crossed a shared link.
  double headroom = 0.2;
  // Pairs at once: enough to fill a trunk a few times a port, few enough
  // that the hosts' CPUs are not what holds a pair back (9 flows of 400
  // Mbit/s at once on a 2-core machine held pairs on one switch too).
  int maxFlows = 4;
  int maxRounds = 24;
};

// The rounds for `nodes` (hnowd's name among them if it takes part): for
// shifts 1, 2, 4, ... the pairs (node i, node i + shift), at most maxFlows a
// round; none for fewer than three nodes.
std::vector<ProbeRound> planRoomDiscovery(std::vector<std::string> nodes, const DiscoveryOptions& options = {});

struct DiscoveredRooms {
  // Every node of the rounds -> its room, "switch-1", "switch-2", ... in the
  // order of each room's first name; empty when the rounds found one room,
  // or contradict each other (a pair held back inside one room).
  std::map<std::string, std::string> roomOf;
  int fullSpeedPairs = 0, heldPairs = 0;
};

// outcomes[i] is round i's.
DiscoveredRooms judgeRoomDiscovery(const std::vector<ProbeRound>& rounds, const std::vector<RoundOutcome>& outcomes,
                                   const KnownRate& known, const DiscoveryOptions& options = {});

}  // namespace hnow::daemon
