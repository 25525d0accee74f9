#pragma once
// Reduction to a sink in the sender-determined model (seed 003 §2): every
// node but the sink sends its (combined) value exactly once; a node sends
// only after all its receives; one transfer at a time per node.
#include <span>
#include <vector>

#include "base/result.h"
#include "planner/search_limits.h"
#include "planner/transfer.h"

namespace hnow::planner {

// Seed 003 §3, Figure 3: start times of the earliest-possible schedule of a
// sender sequence (every node but the sink, in order).
std::vector<double> earliestPossibleStarts(std::span<const double> sendTime,
                                           std::span<const int> senders);

// The EP schedule of a sender sequence as concrete transfers: receivers (and,
// among nodes of equal t, which one sends) chosen so that no node receives
// after it has sent. An error value if no assignment is found.
Result<Schedule> earliestPossibleSchedule(std::span<const double> sendTime, int sink,
                                          std::span<const int> senders);

// Seed 003 §4: slowest-node-first, the EP schedule of senders in
// non-increasing t.
Result<Schedule> slowestNodeFirst(std::span<const double> sendTime, int sink);

// What a homogeneous MPI does: a binomial tree over ranks in node order,
// rotated so the sink is rank 0 (MPICH's binomial reduce): a node receives
// from its children smallest subtree first, then sends to its parent.
Schedule binomialReduction(std::span<const double> sendTime, int sink);

struct OptimalReduction {
  Schedule schedule;
  double makespan = 0.0;
  bool provenOptimal = false;
  SearchStats stats;
};

// Seed 003 §6: branch-and-bound over sender sequences, slower senders first,
// pruned by the exchange lemma (Lemma 1: nobody waits for a faster sender),
// the fastest sender last, and the incumbent.
Result<OptimalReduction> optimalReduction(std::span<const double> sendTime, int sink,
                                          const SearchLimits& limits = {});

// A lower bound on any reduction to `sink`.
double reductionLowerBound(std::span<const double> sendTime, int sink);

}  // namespace hnow::planner
