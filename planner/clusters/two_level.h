#pragma once
// The two-level cluster model of seed 001 §2: k clusters of sizes n_i; a
// transfer inside a cluster takes the local time (one round in the seed), a
// transfer across clusters the global time C. The source is node 0 of
// cluster 0. Nodes are numbered cluster by cluster, so node j of cluster i
// is firstNode(i) + j.
#include <span>
#include <vector>

#include "planner/transfer.h"

namespace hnow::planner {

enum class TwoLevelModel {
  // seed 001 §2: sender and receiver are both busy for the whole transfer.
  kBlocking,
  // seed 001 §6: the sender is busy for one local time per send; a global
  // message arrives C after it was sent and occupies the receiver for the
  // last local time of its flight.
  kPostal,
};

struct TwoLevelInstance {
  std::vector<int> sizes;  // n_i >= 1; cluster 0 holds the source
  // How many of a cluster's first nodes must end with the message: the whole
  // cluster for a broadcast, the multicast group M_i (seed 001 §4) otherwise.
  std::vector<int> needed;
  double localTime = 1.0;
  double globalTime = 1.0;  // C >= localTime
  TwoLevelModel model = TwoLevelModel::kBlocking;
};

// The limits of seed 001 §5 on global (inter-cluster) transfers.
struct GlobalLimits {
  // §5.1: d_i, how many nodes of cluster i may take part in global transfers
  // at once; empty, or 0 for a cluster, means no limit.
  std::vector<int> degree;
  // §5.3: B, how many global transfers may be in progress at once; 0 = no limit.
  int maxGlobal = 0;
};

// A broadcast instance: every node needs the message.
TwoLevelInstance broadcastInstance(std::vector<int> sizes, double localTime, double globalTime,
                                   TwoLevelModel model = TwoLevelModel::kBlocking);

// Maps between node indices and (cluster, position).
class ClusterLayout {
 public:
  explicit ClusterLayout(std::span<const int> sizes);
  int clusters() const { return static_cast<int>(sizes_.size()); }
  int nodes() const { return first_.back(); }
  int size(int cluster) const { return sizes_[cluster]; }
  int firstNode(int cluster) const { return first_[cluster]; }
  int clusterOf(int node) const { return clusterOf_[node]; }
  int positionOf(int node) const { return node - first_[clusterOf_[node]]; }

 private:
  std::vector<int> sizes_;
  std::vector<int> first_;  // clusters() + 1 prefix sums
  std::vector<int> clusterOf_;
};

// Nodes that must end with the message: the first needed[i] of each cluster,
// and the source.
std::vector<int> targetNodes(const TwoLevelInstance& instance);

// How many transfers in `schedule` cross clusters.
int globalTransferCount(const ClusterLayout& layout, std::span<const Transfer> schedule);

}  // namespace hnow::planner
