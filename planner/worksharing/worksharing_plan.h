#pragma once
// One entry point for `hnow plan` and the daemon: the algorithm, worker
// selection and the question asked (work in a lifespan, or time for some
// work), answered with one solve because the model is linear in L (seed 002
// §III-B: time and work are measured in the same units).
#include <optional>
#include <vector>

#include "base/result.h"
#include "planner/search_limits.h"
#include "planner/transfer.h"
#include "planner/worksharing/worksharing.h"

namespace hnow::planner {

enum class WorksharingAlgorithm { kFifo, kLifo, kSmallResults, kBest };

// Exactly one is set: the lifespan L, or the work W to finish soonest.
struct WorksharingGoal {
  std::optional<double> lifespan;
  std::optional<double> work;
};

// small-results solves its protocol's equations densely (O(k^3)).
inline constexpr int kMaxSmallResultsWorkers = 1000;

struct NegativeShare {
  int worker = 0;
  double units = 0.0;
};

struct WorksharingPlan {
  Allocation allocation;       // shares for allocation.lifespan (the given L, or the time W needs)
  std::vector<int> leftOut;    // workers given nothing (worker selection, Proposition 1)
  // Set when every worker was kept (select_workers = false) and the protocol
  // needs a negative share: the plan is infeasible and must not be used.
  std::optional<NegativeShare> negativeShare;
  // best only: FIFO's work over best's, and Theorem 5's guarantee tau_min/tau_max.
  std::optional<double> fifoRatio;
  double theorem5Ratio = 1.0;
  // Work goal only: no protocol finishes the work sooner than this.
  std::optional<double> makespanLowerBound;
  std::optional<bool> provenOptimal;  // best only
  SearchStats stats;
};

Result<WorksharingPlan> planWorksharing(const WorksharingProblem& problem,
                                        WorksharingAlgorithm algorithm, bool selectWorkers,
                                        const WorksharingGoal& goal, const SearchLimits& limits = {});

}  // namespace hnow::planner
