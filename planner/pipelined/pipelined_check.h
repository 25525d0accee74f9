#pragma once
// An independent check of pipelined predictions: a chunk-by-chunk replay of
// a broadcast tree (every plan is replayed by a simulator:
// docs/architecture.md "Testing").
// Rules: each edge p -> c moves one chunk at a time at its share r(p, c) of
// p's uplink (uplink(p) / outdeg(p), capped by c's downlink); a chunk reaches
// c a hop latency (outdeg(p)·S_c(p) + R_c(c), plus the cross-site latency)
// after it has crossed the edge; p forwards chunk j only once it holds it; a
// relay buffers at most `windowChunks` chunks it has not yet passed to all
// its children (backpressure), the source reads the file and never waits.
#include <span>
#include <vector>

#include "base/result.h"
#include "planner/broadcast/broadcast_tree.h"
#include "planner/node_rates.h"
#include "planner/site_links.h"

namespace hnow::planner {

struct PipelinedReplay {
  double makespan = 0.0;        // when the last node holds the whole file
  std::vector<double> finish;   // per node; 0 for the source, -1 out of the tree
  double slowestEdgeShare = 0;  // the smallest r(p, c) seen
};

// Rejects a tree that does not reach every destination, has an edge whose
// rate is not positive, or whose children's shares exceed a parent's uplink,
// with an Error saying which.
Result<PipelinedReplay> replayPipelined(const BroadcastTree& tree, std::span<const NodeRates> rates,
                                        std::span<const int> destinations, double fileBytes,
                                        double chunkBytes, int windowChunks = 4,
                                        const SiteLinks& sites = {});

}  // namespace hnow::planner
