#pragma once
// Nodes with equal send time are interchangeable in seeds 000 and 003: the
// exact searches branch over these classes, not over nodes (symmetry breaking).
#include <span>
#include <vector>

namespace hnow::planner {

struct NodeClasses {
  std::vector<double> sendTime;          // per class, ascending (class 0 is the fastest)
  std::vector<std::vector<int>> members;  // node indices per class, ascending
  std::vector<int> classOf;               // per node; -1 for excluded nodes
};

// Groups every node except `excluded` (the broadcast source or reduction sink).
NodeClasses classesOf(std::span<const double> sendTime, int excluded);

}  // namespace hnow::planner
