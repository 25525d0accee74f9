#pragma once
// The tree a file is pushed along, from the rate table: the adapter between
// planner/ and the data plane. Node 0 is the source (hnowd), 1..n the
// agents. Today the tree comes from the store-and-forward schedules of seed
// 000/001 (each transfer from -> to becomes parent[to] = from) and its time
// is predicted for pipelined chunks; the size-aware pipelined planner
// (branch `pipeline`, planner/) replaces planSendTree's body, nothing else.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "planner/node_rates.h"

namespace hnow::daemon {

struct TreeNode {
  std::string name;
  std::string site;
  planner::NodeRates rates;
};

struct SendTree {
  std::string algo;            // the algorithm used ("auto" resolved to one)
  std::vector<int> parent;     // parent[0] = -1
  std::vector<double> finish;  // predicted finish per node, seconds
  double predictedSeconds = 0.0;
};

// auto|fnf|optimal|lcf|binomial|chain|flat
bool knownSendAlgo(const std::string& algo);

// `nodes[0]` is the source; its uplink is what it will be paced at.
// `auto` takes the tree with the smallest predicted pipelined time among
// fnf, binomial, chain, flat (and lcf when the agents span several sites).
SendTree planSendTree(const std::string& algo, const std::vector<TreeNode>& nodes,
                      std::uint64_t size, std::uint32_t chunkBytes);

// Pipelined time of a tree: a node receives at the smallest of its parent's
// incoming rate, its parent's uplink shared by the parent's children, and
// its own downlink; its first chunk waits one chunk time per hop.
std::vector<double> predictPipelined(const std::vector<int>& parent,
                                     const std::vector<TreeNode>& nodes, std::uint64_t size,
                                     std::uint32_t chunkBytes);

}  // namespace hnow::daemon
