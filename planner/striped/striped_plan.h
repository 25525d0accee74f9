#pragma once
// A striped broadcast (Kumar & Ross, "Peer-assisted file distribution: the
// minimum distribution time", 2006; docs/striped-broadcast.md). One
// pipelined tree leaves its leaves' uplinks idle; here the file is cut into
// S equal stripes, each pushed along its own pipelined tree over the source
// and the destinations, and every node feeds children in whichever stripes
// need them, so that together the trees use every uplink.
//
// The model is the data plane's (concurrent_pipelines.h): a node's uplink is
// shared equally by all its children across stripes, its downlink by its S
// parents. At a receive rate R per destination (R/S per stripe), node v can
// feed c_v = floor(u_v·S/R) children (at most maxChildren), the source c_s;
// S trees over N destinations need S·N parents, and the source must start
// each stripe. So R is feasible when
//   R <= d_min,   c_s >= S,   c_s + Σ c_v >= S·N,
// and the file takes about size/R plus each stripe's pipeline fill. As S
// grows the floors vanish and R reaches min(u_s, d_min, (u_s + Σ u_v)/N):
// the Kumar–Ross bound. S and the children per node bound the connections
// every node opens (S in, maxChildren out), which a lab of 256 agents needs.
#include <span>
#include <vector>

#include "base/result.h"
#include "planner/broadcast/broadcast_tree.h"
#include "planner/node_rates.h"
#include "planner/site_links.h"

namespace hnow::planner {

struct StripedOptions {
  // S at most (and at most the file's chunks): a node's parents, so its
  // connections in. Each uplink loses up to a child's share, R/S, to
  // rounding: on 8 volunteers at 20-100 Mbit/s, 16 stripes planned 1.044x
  // the bound and 20 stripes 1.029x.
  int maxStripes = 24;
  int minStripes = 1;    // S at least: a running send re-plans its stripes with their number fixed
  int maxChildren = 32;  // children per agent across all stripes
  // The source starts every stripe, and where its uplink is several times
  // an agent's it feeds that many more children: capped at 32 it left a
  // fifth of a 200 Mbit/s hnowd idle beside 20-100 Mbit/s volunteers at 16
  // stripes. hnowd is the one process built to serve many connections.
  int maxSourceChildren = 64;
  // A stripe's chunk crosses each hop at R/S, so its pipeline fills S times
  // slower than one tree's: the plan may halve the chunk size down to this
  // (128 KiB: a chunk's frame, hash and acknowledgement stay small beside it).
  double minChunkBytes = 128 * 1024;
};

struct StripedPlan {
  // Stripe k is chunks [firstChunk[k], firstChunk[k + 1]) of the file;
  // trees[k] pushes it, children in the order a node serves them.
  std::vector<BroadcastTree> trees;
  std::vector<long long> firstChunk;  // S + 1 entries, the last the chunk count
  double chunkBytes = 0.0;            // the plan's chunk size: the one asked for or a half, quarter...
  double rateBytesPerSecond = 0.0;    // R: what every destination receives
  double predictedSeconds = 0.0;      // the last copy's finish
  std::vector<double> finishSeconds;  // per node; 0 for the source, -1 out of the plan
  double boundSeconds = 0.0;          // kumarRossBound for the same send
  int stripes() const { return static_cast<int>(trees.size()); }
};

// For each S up to maxStripes, and each chunk size from `chunkBytes` halved
// down to minChunkBytes, the largest feasible R and its trees,
// breadth first with the nodes that feed most placed first (the least
// depth), predicted with predictConcurrentPipelines; the fewest stripes of
// the least predicted time win, and the largest chunk (more stripes round
// less of each uplink away, but a chunk crosses each hop at R/S, which slows
// the pipeline fill; smaller chunks fill it faster). Nodes that are not destinations take no part.
// Errors: a bad node index, a destination with no downlink, a source with no
// uplink while there are destinations, a size or chunk that is not positive,
// options below 1.
// With rooms behind trunks (`sites`, striped_rooms.h), every stripe enters
// each room once, by the node with the most children in it, and is relayed
// inside; the stripes into a room stay within its trunk, and so do those a
// room passes on; every room fed from the source's room, and the tree of
// rooms with the largest bottleneck, are both weighed.
Result<StripedPlan> planStriped(std::span<const NodeRates> rates, int source, std::span<const int> destinations,
                                double fileBytes, double chunkBytes, const StripedOptions& options = {},
                                const SiteLinks& sites = {});

// Kumar & Ross's minimum distribution time over the source and the
// destinations, with relays (nodes that are not destinations) as helpers:
//   max(F/u_s, F/d_min, N·F / (u_s + Σ_D u_i + Σ_H min(u_h, N·d_h)·(1 - 1/N))).
// A helper uploads each byte it fetched to at most N destinations, so every
// byte it sends costs 1/N of a byte sent to it (docs/striped-broadcast.md).
// With rooms behind trunks, the largest over cuts: also roomCutBound
// (striped_rooms.h), F through each trunk a room sits behind.
// 0 with no destination.
double kumarRossBound(std::span<const NodeRates> rates, int source, std::span<const int> destinations,
                      double fileBytes, bool withHelpers = false, const SiteLinks& sites = {});

}  // namespace hnow::planner
