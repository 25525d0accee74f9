#pragma once
// Fewer copies across slow trunks at the same predicted time. A tree's
// algorithm (LCF, FNF, the max-bottleneck tree) may feed a room from a node
// whose own room's trunk is limited, where a node of a room behind an
// unlimited trunk, or of the room itself, would do as well: on a line of
// rooms A - B - C with the source in A, A feeding both B and C sends 2 F
// through A's trunk while B passing the file to C sends F. Both take the
// time C's trunk allows, so the time does not choose; the bytes do. Seed
// 001 §5.1 (Khuller, Kim and Wan, 2003) counts the transfers across the
// global network for the same reason: they are what the clusters share.
#include <span>

#include "planner/broadcast/broadcast_tree.h"
#include "planner/node_rates.h"
#include "planner/site_links.h"

namespace hnow::planner {

// The limited trunks the tree's edges cross, summed (site_links.h
// limitedCrossings): the file's copies through slow links.
int trunkCrossings(const BroadcastTree& tree, const SiteLinks& sites);

// `tree` with nodes fed across a limited trunk moved, one at a time, to a
// parent whose edge crosses fewer of them (a node of their own room first),
// as long as the pipelined prediction stays within `slack` (relative) of
// `tree`'s. A node moves after its parent's last child; nodes that cannot
// send (uplink 0) never become parents. `tree` itself without trunk limits,
// or when its prediction fails.
BroadcastTree fewerTrunkCrossings(const BroadcastTree& tree, std::span<const NodeRates> rates, double fileBytes,
                                  double chunkBytes, const SiteLinks& sites, double slack = 0.01);

}  // namespace hnow::planner
