#pragma once
// op = "cluster-broadcast" | "cluster-multicast": two-level clusters, cost
// local_time inside a cluster and global_time across (seed 001).
#include <string>
#include <vector>

namespace hnow::conf {

class TableReader;

struct ClusterSpec {
  std::string name;
  int size = 1;
  int members = 0;  // cluster-multicast: the first `members` nodes need the message
  int degree = 0;   // seed 001 §5.1 d_i; 0 = no limit
};

struct TwoLevelRequest {
  enum class Op { kBroadcast, kMulticast };
  Op op = Op::kBroadcast;
  std::string algo;              // lcf | interleaved-lcf (postal broadcast only)
  bool postal = false;           // model = "postal" (seed 001 §6); default "blocking"
  double localTime = 1.0;        // seconds for a transfer inside a cluster
  double globalTime = 1.0;       // C: seconds for a transfer across clusters, >= localTime
  int maxGlobal = 0;             // seed 001 §5.3 B; 0 = no limit
  std::vector<ClusterSpec> clusters;  // the first holds the source, node 0
};

const std::vector<std::string>& clusterBroadcastAlgorithms();
const std::vector<std::string>& clusterMulticastAlgorithms();

// The most nodes a request may describe: a plan names every node.
constexpr int kMaxTwoLevelNodes = 100000;

// Reads the request's keys (all but `op`); throws ConfFailure (conf/ only).
TwoLevelRequest readTwoLevelRequest(TableReader& request, TwoLevelRequest::Op op);

}  // namespace hnow::conf
