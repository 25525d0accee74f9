#pragma once
// The size-aware pipelined broadcast (docs/pipelined-broadcast.md). The
// seeds' models are store-and-forward;
// for a large file the runtime relays each chunk as it arrives, so the file
// moves at the tree's bottleneck rate. A node's uplink is shared by its
// children: the edge p -> c carries
//   r(p, c) = min(uplink(p) / outdeg(p), downlink(c)[, cross-site cap]).
// The time is about depth x chunk latency + size / bottleneck; see
// docs/pipelined-broadcast.md for the model and the proofs.
#include <span>
#include <vector>

#include "base/result.h"
#include "planner/broadcast/broadcast_tree.h"
#include "planner/node_rates.h"
#include "planner/site_links.h"

namespace hnow::planner {

struct PipelinedTreeOptions {
  // Nodes that are not destinations may relay (they are left out otherwise,
  // and always when they would be a leaf).
  bool allowRelays = true;
};

// The tree with the largest bottleneck rate, and among those one of least
// depth. For a rate b a node p can feed floor(uplink(p) / b) children and a
// node with downlink < b cannot join, so the largest feasible b is found by
// search over b with an exact feasibility test (nodes by capacity, most
// first); the tree is then built level by level, largest capacity first,
// which minimizes depth. Site limits are not taken into account.
// Errors: a source that cannot send (zero uplink) while there are
// destinations, a destination with zero downlink, a bad node index.
Result<BroadcastTree> maxBottleneckTree(std::span<const NodeRates> rates, int source,
                                        std::span<const int> destinations,
                                        const PipelinedTreeOptions& options = {});

// The rate of every edge of `tree` under uplink sharing, per child node
// (0 for the source and nodes out of the tree).
std::vector<double> edgeRates(const BroadcastTree& tree, std::span<const NodeRates> rates,
                              const SiteLinks& sites = {});

// The tree's bottleneck: the smallest edge rate; 0 for a tree without edges.
double bottleneckRate(const BroadcastTree& tree, std::span<const NodeRates> rates,
                      const SiteLinks& sites = {});

struct PipelinedPrediction {
  double seconds = 0.0;                 // the last node's finish
  double bottleneckBytesPerSecond = 0;  // 0 for a tree without edges
  int depth = 0;
  // Per node: when it holds the whole file; 0 for the source, -1 out of the tree.
  std::vector<double> finishSeconds;
};

// Predicted time of a pipelined broadcast of `fileBytes` in chunks of
// `chunkBytes` along `tree`. The first chunk reaches c after the sum over its
// path of a hop latency outdeg(p)·S_c(p) + R_c(c) + chunk / r(p, c) (plus the
// cross-site latency); the rest follows at the bottleneck of the subtree of
// the source's child above c (a relay holds a bounded window, so it moves at
// its slowest descendant's pace; the source reads the file once per child).
// An edge of rate 0 gives +infinity, a value, not an error.
Result<PipelinedPrediction> predictPipelined(const BroadcastTree& tree, std::span<const NodeRates> rates,
                                             double fileBytes, double chunkBytes,
                                             const SiteLinks& sites = {});

// The fluid lower bound of the targets: no destination receives faster
// than its downlink, and the N·size bytes the N destinations receive are sent
// by the source, the destinations and any relays (a relay also receives the
// file, so relays are counted only as long as they raise the bound's rate):
//   max(size / uplink(source), size / min downlink,
//       N·size / (uplink(source) + Σ uplinks)).
// Never above the predicted time of any tree, pipelined or store-and-forward.
double fluidLowerBound(std::span<const NodeRates> rates, int source, std::span<const int> destinations,
                       double fileBytes, const PipelinedTreeOptions& options = {});

}  // namespace hnow::planner
