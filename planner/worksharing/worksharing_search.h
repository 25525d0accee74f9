#pragma once
// Seed 002 §VII leaves the complexity of the general problem open and §IV-D
// shows that neither FIFO nor LIFO dominates, so "best" is an exhaustive
// search over worker subsets, serve orders and return orders, for small
// clusters. It is the reference FIFO is measured against (Theorem 5).
#include "base/result.h"
#include "planner/search_limits.h"
#include "planner/transfer.h"
#include "planner/worksharing/worksharing.h"

namespace hnow::planner {

inline constexpr int kMaxBestWorkers = 8;

struct BestWorksharing {
  Allocation allocation;
  bool provenOptimal = false;
  SearchStats stats;  // searchNodes: return-order search nodes visited
};

// The protocol doing the most work in `lifespan` among all no-gap protocols
// (equations (12)) with nonnegative shares: every subset of the workers
// (only all of them when `selectWorkers` is false), every serve order, every
// return order. Allowing idle time gains nothing: the best protocol with
// idle time is a linear program whose optimal vertex is a no-gap protocol on
// the workers with positive shares.
// Pruning, all exact: the incumbent is FIFO/LIFO improved by local moves
// (worksharing_local_search.h); serve orders are visited by decreasing
// upper bound (the relaxation in which returns never wait for each other)
// and cut when the bound cannot beat the incumbent; return orders are built
// from the last return backwards, eliminating one equation per step (a
// Schur complement), so a leaf costs O(1), each subtree is bounded by LP
// weak duality with the share caps w_i <= 1/(R_i + (1+delta) tau_i) before
// it is formed (worksharing_node_bound.h: O(r) or O(r^2) per child from one
// LU factorization per node), and only improving leaves are re-solved in full. With delta = 1, one of each
// pair of time-mirrored protocols is searched.
Result<BestWorksharing> bestWorksharing(const WorksharingProblem& problem, bool selectWorkers,
                                        double lifespan, const SearchLimits& limits = {});

}  // namespace hnow::planner
