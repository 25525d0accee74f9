#pragma once
// Exact optimal broadcast for the sender-determined model (seed 000 §5).
#include <span>

#include "planner/search_limits.h"
#include "planner/transfer.h"

namespace hnow::planner {

struct OptimalBroadcast {
  Schedule schedule;
  double makespan = 0.0;
  bool provenOptimal = false;
  SearchStats stats;  // seconds is left 0 here; callers that own a clock fill it
};

// Branch-and-bound over ready orders (seed 000 §5): FNF order explored first,
// nodes of equal t treated as one class (symmetry breaking), the fastest
// class first when the source belongs to it (Theorem 4.3), no slower
// non-source sender to a faster receiver (Theorem 4.2), bound pruning.
OptimalBroadcast optimalBroadcast(std::span<const double> sendTime, int source,
                                  const SearchLimits& limits = {});

// The "generic branch-and-bound" of seed 000 Table 1, for comparison only:
// ready orders over classes in index order, pruned only by the incumbent.
OptimalBroadcast plainBranchAndBoundBroadcast(std::span<const double> sendTime, int source,
                                              const SearchLimits& limits = {});

}  // namespace hnow::planner
