#pragma once
// Several pipelined trees at once over the same nodes: the prediction for a
// manifest, whose items run together on the data plane.
// predictPipelined's model (pipelined_tree.h, within 1% in docs/bench-send.md)
// extended to sharing across items:
// - one uplink token bucket per process is shared by all the children it
//   serves, across operations, and one downlink by all the parents it pulls
//   from (transport/data/data_plane.h), so the edge p -> c carries
//     min(uplink(p) / out(p), downlink(c) / in(c)),
//   out and in counting the edges of every item still moving, and no
//   faster than its equal share of each room trunk it crosses (site_links.h);
// - within an item, the subtree under each of the source's children moves
//   at its slowest edge, as in predictPipelined;
// - when such a subtree ends, its edges free their shares and the rates are
//   recomputed: a fluid simulation with one phase per subtree that ends.
// A node holds its copy the first chunk's latency (predictPipelined's, with
// out(p) at the start) after its subtree has moved the rest of the file.
#include <span>
#include <vector>

#include "base/result.h"
#include "planner/broadcast/broadcast_tree.h"
#include "planner/node_rates.h"
#include "planner/site_links.h"

namespace hnow::planner {

struct PipelinedItem {
  BroadcastTree tree;  // over all nodes; nodes out of the tree have parent -1
  double bytes = 0.0;
};

struct ConcurrentPrediction {
  double seconds = 0.0;  // the last copy's finish
  // [item][node]: when the node holds the item; 0 at its source, -1 out of its tree.
  std::vector<std::vector<double>> finishSeconds;
};

// An edge of rate 0 gives +infinity, a value, not an error. Errors: a tree
// over a different number of nodes than `rates`, a negative size, a chunk
// size that is not positive.
Result<ConcurrentPrediction> predictConcurrentPipelines(std::span<const PipelinedItem> items,
                                                        std::span<const NodeRates> rates, double chunkBytes,
                                                        const SiteLinks& sites = {});

}  // namespace hnow::planner
