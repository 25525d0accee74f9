#pragma once
// The rooms a striped broadcast crosses (site_links.h). A room behind a
// trunk should take each byte through it once: every stripe enters the room
// at one node and is relayed inside it, and a room may pass the stripes on
// to another room (a line of rooms, where the trunk nearest the source is
// the fast one). The stripes into a room move together, so the rate R
// every destination receives is at most the room's trunk inwards, and a
// room that feeds k rooms sends k·R out through its own trunk. This is seed
// 001's §5.1 bounded-degree model read in bytes (Khuller, Kim and Wan,
// 2003): one transfer set per cluster crosses the global network, and LCF's
// idea, that a cluster once reached serves itself, is the relay inside.
#include <span>
#include <vector>

#include "planner/node_rates.h"
#include "planner/site_links.h"

namespace hnow::planner {

struct StripeRoom {
  int site = 0;
  std::vector<int> members;  // destinations in the room, ascending; never the source
  bool holdsSource = false;
  Trunk trunk;
  int parent = -1;  // the room every stripe enters this one from; -1 for the source's
  std::vector<int> children;
};

// rooms[0] holds the source; the others in order of their first destination.
// Without sites every destination is in rooms[0].
std::vector<StripeRoom> stripeRooms(int source, std::span<const int> destinations, const SiteLinks& sites);

// Ways the stripes may travel between rooms, as parent per room: every room
// fed from the source's, and with three rooms or more every room fed through
// a hub (a room whose trunk out is not limited, when the source's is)
// and the tree of rooms with the largest bottleneck over trunks and each
// room's uplinks together. Fewest copies through limited trunks first
// (roomTreeCrossings), the star first among equals.
std::vector<std::vector<int>> roomTreeCandidates(const std::vector<StripeRoom>& rooms,
                                                 std::span<const NodeRates> rates, int source);

// The limited trunks a room tree's stripes cross, per stripe: each room's
// trunk in, and its parent's trunk out, where they have a limit.
int roomTreeCrossings(const std::vector<StripeRoom>& rooms, const std::vector<int>& parent);

// Sets parent and children from `parent`.
void setRoomTree(std::vector<StripeRoom>& rooms, const std::vector<int>& parent);

// Parents before children, rooms[0] first.
std::vector<int> roomOrder(const std::vector<StripeRoom>& rooms);

// The cut bound of a broadcast across rooms: every room beyond a trunk must
// take F in through it, the source's room must send F out if any
// destination is elsewhere, and a room's destinations receive |D_r|·F from
// its trunk inwards and its own uplinks (the source's, in its room) only.
// 0 without trunk limits or destinations.
double roomCutBound(std::span<const NodeRates> rates, int source, std::span<const int> destinations,
                    double fileBytes, const SiteLinks& sites);

}  // namespace hnow::planner
