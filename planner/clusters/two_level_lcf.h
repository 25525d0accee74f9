#pragma once
// Largest Cluster First and the algorithms of seed 001 built on it. One
// event-driven engine serves them all: after an LCF phase that makes m
// copies (LCF(m), §4), a spread phase sends one copy to every cluster that
// still needs one, largest group first, and each cluster then broadcasts
// locally to the nodes that need the message.
//
// Determinism: nodes free at the same instant decide in index order, those
// whose cluster has no local work left first (they take global transfers
// before nodes that could broadcast locally); ties
// between clusters of equal size go to the lower index; a local transfer
// goes to the lowest-numbered node of the cluster not yet sent to; a global
// transfer goes to node 0 of the receiving cluster (its advertised address, §2).
#include "planner/transfer.h"
#include "planner/clusters/two_level.h"

namespace hnow::planner {

struct LcfPhases {
  // LCF(m) of seed 001 §4: the LCF phase starts no transfer once m nodes
  // hold the message. m >= the node count gives plain LCF.
  long long lcfCopies = 0;
  // §5.3: at most this many global transfers at once (0 = no limit).
  int maxGlobal = 0;
  // §3 footnote 1: interrupt local broadcasting for one global transfer as
  // soon as as many nodes hold the message as there are clusters without it.
  bool footnoteInterrupt = true;
};

Schedule runLcfPhases(const TwoLevelInstance& instance, const LcfPhases& phases);

// seed 001 §3 (blocking model) and §6.1 (postal model): broadcast locally in
// K0; a cluster in which every node holds the message sends one copy to each
// of the largest clusters without one, from each node, every C (every local
// time in the postal model); a cluster that receives broadcasts locally.
// Exactly k - 1 global transfers.
Schedule largestClusterFirst(const TwoLevelInstance& instance);

// seed 001 §4, LCF Multicast: phase 1 LCF(k') with any nodes, k' the number
// of clusters other than K0 with members; phase 2 one copy to each such
// cluster still without one; phase 3 local broadcast to the members.
Schedule lcfMulticast(const TwoLevelInstance& instance);

// seed 001 §5.3 (broadcast) and §5.4 (multicast), bounded-size matching:
// LCF(B) with B capped at floor(N/2) (more copies cannot all send at once),
// then B more clusters every C until every cluster that needs the message
// has a copy, then local broadcast; never more than B global transfers at
// once. With k' <= B a multicast is LCF Multicast under the same cap.
Schedule boundedSizeLcf(const TwoLevelInstance& instance, int maxGlobal);

// The number of clusters other than K0 with a node that needs the message.
int clustersNeedingCopy(const TwoLevelInstance& instance);

}  // namespace hnow::planner
