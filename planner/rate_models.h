#pragma once
// From measured rates to the seeds' store-and-forward models
// (docs/pipelined-broadcast.md "From measured rates to the seeds' models"),
// so that their schedules can be planned and predicted for a file of m bytes.
#include <span>
#include <vector>

#include "base/result.h"
#include "planner/broadcast/broadcast_tree.h"
#include "planner/clusters/two_level.h"
#include "planner/node_rates.h"
#include "planner/site_links.h"

namespace hnow::planner {

// Seed 000 §2, sender-determined: t(p) = S_c(p) + m / uplink(p) for every
// node; +infinity for a node with zero uplink (it is never worth a send).
std::vector<double> senderDeterminedSendTimes(std::span<const NodeRates> rates, double messageBytes);

// The nodes of a store-and-forward broadcast (seed 000 broadcasts to every
// node it is given): the source and the destinations, ascending, so that
// "host order" baselines keep their order. Local index i is node nodes[i].
struct Participants {
  std::vector<int> nodes;
  int sourceIndex = 0;
};
Result<Participants> participantsOf(int nodeCount, int source, std::span<const int> destinations);

// The participants' rates, in local index order.
std::vector<NodeRates> ratesOf(const Participants& participants, std::span<const NodeRates> rates);

// A schedule over local indices as one over node ids.
Schedule toNodeIds(const Participants& participants, std::span<const Transfer> local);

// Seed 001 §2 from rates: one cluster per site among the participants, the
// source's first (as node 0); inside a cluster the nodes by increasing send
// time, so that LCF's "lowest-numbered node not yet sent to" is fastest first
// and each cluster's advertised node is its fastest. The seed's model has one
// local time and one C for all nodes: the medians over the participants of
// t(p) and of the cross-site time S_c(p) + m / min(uplink, cap) + latency,
// with C raised to the local time if smaller (the seed assumes C >= 1).
// Predictions replay the resulting schedule with every node's own times.
struct TwoLevelFromRates {
  TwoLevelInstance instance;
  std::vector<int> nodeOfLayout;  // two-level node index -> node id
};
Result<TwoLevelFromRates> twoLevelFromRates(std::span<const NodeRates> rates, const Participants& participants,
                                            const SiteLinks& sites, double messageBytes);

struct StoreAndForwardPrediction {
  double seconds = 0.0;
  // Per node: when it holds the whole file; 0 for the source, -1 out of the tree.
  std::vector<double> finishSeconds;
};

// Store-and-forward along `tree` with each node's own times: a node sends to
// its children one after another, in order, from the moment it holds the
// whole file; the send p -> c keeps p busy S_c(p) + m / min(uplink(p),
// downlink(c)[, cap]) and c holds the file R_c(c) (and any cross-site
// latency) later. With zero receive overheads and downlinks no slower than
// the senders' uplinks this is exactly seed 000's time for FNF's,
// binomial's, chain's and flat's schedules (they never leave a sender idle).
StoreAndForwardPrediction predictStoreAndForward(const BroadcastTree& tree, std::span<const NodeRates> rates,
                                                 double messageBytes, const SiteLinks& sites = {});

}  // namespace hnow::planner
