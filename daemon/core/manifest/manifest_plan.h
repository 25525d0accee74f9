#pragma once
// The joint plan of a manifest: several files, each from its own
// source agent to its own destinations, planned together by seed 004's
// multiple multicast heuristics and run on the data plane as one pipelined
// tree per item, all at once.
//
// Why pipelined and not store-and-forward in the planned order: the seeds'
// models are store-and-forward, but for large files the runtime pipelines
// chunks (docs/pipelined-broadcast.md), and the data plane has no
// store-and-forward mode (send_tree.h). Holding each child back until its
// parent has the whole item would make every hop cost a whole file's time,
// while pipelined trees move at their bottleneck rate. So seed 004 decides who
// sends each item to whom (its model, multicastFromRates, charges a sender's
// uplink for every send, which keeps fan-out down where uplinks are shared),
// and the time is predicted for what runs: the trees pipelined together, with
// uplinks and downlinks shared across items
// (planner/pipelined/concurrent_pipelines.h). `auto` takes the candidate with
// the least such prediction; besides seed 004's heuristics it weighs two
// pipelined candidates (knownManifestAlgo). Logic only.
#include <cstdint>
#include <string>
#include <vector>

#include "core/send/send_tree.h"

namespace hnow::daemon {

struct ManifestItemNodes {
  int source = 0;                 // index into the nodes
  std::vector<int> destinations;  // distinct, never the source
  std::uint64_t size = 0;
};

struct ItemTree {
  std::vector<int> parent;     // over all nodes; -1 for the source and nodes out of the item
  std::vector<double> finish;  // predicted, seconds; 0 at the source, -1 out of the item
};

struct ManifestPlan {
  std::string algo;  // resolved: "ecf", "wrp", "independent", ...
  std::vector<ItemTree> items;
  double predictedSeconds = 0.0;
  // Every candidate auto weighed (or the one asked for): its trees run
  // together ("pipelined, together"), and for seed 004's heuristics their
  // own store-and-forward makespan ("store-and-forward").
  std::vector<PlanOption> considered;
  // The items one after another, each alone along its best single-send tree
  // (planSendTree's auto): the baseline a joint plan must beat.
  double sequentialSeconds = 0.0;
  // Seed 004 §3.2 on the store-and-forward instance (for the report).
  double lowerBoundSeconds = 0.0;
};

// auto|fef|ecf|wr|eaf|rr|rrs|ecfp|wrp|eafp|rrp|rrsp|independent|residual
// (the trailing p: seed 004 §5's preemptive form; independent: each item's
// best single-send tree, planned alone, run together; residual: the items,
// largest first, each along its max-bottleneck tree over the uplink and
// downlink capacity the items before it left).
bool knownManifestAlgo(const std::string& algo);

Result<ManifestPlan> planManifest(const std::string& algo, const std::vector<TreeNode>& nodes,
                                  const std::vector<ManifestItemNodes>& items, std::uint32_t chunkBytes);

// Item `item`'s tree as a SendTree over local indices: 0 the source, then
// the destinations in the order given (what SendOperation runs).
SendTree itemSendTree(const ManifestPlan& plan, const ManifestItemNodes& item, std::size_t index);

}  // namespace hnow::daemon
