#include "planner/worksharing/worksharing_plan.h"

#include <algorithm>

#include "planner/worksharing/worksharing_search.h"
#include "planner/worksharing/worksharing_small_results.h"

namespace hnow::planner {

namespace {

// Shares for L = 1 from one of the polynomial algorithms.
struct Solved {
  Allocation allocation;
  std::optional<NegativeShare> negativeShare;
};

std::optional<NegativeShare> firstNegative(const Allocation& a) {
  for (int w : a.protocol.serveOrder)
    if (a.units[w] < 0) return NegativeShare{w, a.units[w]};
  return std::nullopt;
}

Result<Solved> smallResults(const WorksharingProblem& problem, std::span<const int> order,
                            bool selectWorkers) {
  // Prefix chosen by Proposition 1, then shrunk while a share is negative
  // (§V-B's order is first-order optimal; with large delta it can ask a
  // late worker for negative work).
  int m = selectWorkers ? fifoSelectedPrefix(problem, order) : static_cast<int>(order.size());
  for (;; --m) {
    auto solved = solveProtocol(problem, smallResultsProtocol(problem, order.first(m)), 1.0);
    if (!solved) return solved.error();
    auto negative = firstNegative(*solved);
    if (!negative || !selectWorkers || m == 1) return Solved{std::move(solved).value(), negative};
  }
}

Result<Solved> solve(const WorksharingProblem& problem, WorksharingAlgorithm algorithm,
                     bool selectWorkers) {
  // Theorem 1(c) and Proposition 4: serve faster links first.
  const std::vector<int> order = byIncreasingLinkTime(problem);
  switch (algorithm) {
    case WorksharingAlgorithm::kFifo: {
      const int m = selectWorkers ? fifoSelectedPrefix(problem, order) : static_cast<int>(order.size());
      return Solved{fifoAllocation(problem, std::span(order).first(m), 1.0), std::nullopt};
    }
    case WorksharingAlgorithm::kLifo:
      // Theorem 1(b): every worker adds a positive term to (4), so
      // selection keeps them all.
      return Solved{lifoAllocation(problem, order, 1.0), std::nullopt};
    case WorksharingAlgorithm::kSmallResults:
      if (static_cast<int>(order.size()) > kMaxSmallResultsWorkers)
        return Result<Solved>::failure("small-results solves a dense linear system and takes at most " +
                                        std::to_string(kMaxSmallResultsWorkers) + " workers, not " +
                                        std::to_string(order.size()) + "; use fifo or lifo");
      return smallResults(problem, order, selectWorkers);
    case WorksharingAlgorithm::kBest:
      break;
  }
  return Result<Solved>::failure("internal error: unknown algorithm");
}

// A lower bound on the time any protocol needs for `work` units (work goal).
double makespanLowerBound(const WorksharingProblem& problem, double work, double theorem5Ratio) {
  const double delta = problem.resultRatio;
  double rate = 0.0, fastestLink = problem.workers.front().linkTime;
  for (const Worker& w : problem.workers) {
    rate += 1.0 / (w.computeTime + (1.0 + delta) * w.linkTime);  // serve, compute, return in turn
    fastestLink = std::min(fastestLink, w.linkTime);
  }
  double bound = std::max(work / rate, fastestLink * work);  // each worker; the serve port
  // Theorem 5: OPT <= (tau_max/tau_min) * FIFO's work with every worker.
  const Allocation fifo = fifoAllocation(problem, byIncreasingLinkTime(problem), 1.0);
  bound = std::max(bound, theorem5Ratio * lifespanFor(fifo, work));
  return bound;
}

}  // namespace

Result<WorksharingPlan> planWorksharing(const WorksharingProblem& problem,
                                        WorksharingAlgorithm algorithm, bool selectWorkers,
                                        const WorksharingGoal& goal, const SearchLimits& limits) {
  if (problem.workers.empty()) return Result<WorksharingPlan>::failure("there are no workers");
  if (goal.lifespan.has_value() == goal.work.has_value())
    return Result<WorksharingPlan>::failure("give exactly one of a lifespan and an amount of work");
  WorksharingPlan plan;
  double tauMin = problem.workers.front().linkTime, tauMax = tauMin;
  for (const Worker& w : problem.workers) {
    tauMin = std::min(tauMin, w.linkTime);
    tauMax = std::max(tauMax, w.linkTime);
  }
  plan.theorem5Ratio = tauMin / tauMax;

  Allocation unit;  // shares for L = 1
  if (algorithm == WorksharingAlgorithm::kBest) {
    auto best = bestWorksharing(problem, selectWorkers, 1.0, limits);
    if (!best) return best.error();
    unit = best->allocation;
    plan.provenOptimal = best->provenOptimal;
    plan.stats = best->stats;
    auto fifo = solve(problem, WorksharingAlgorithm::kFifo, selectWorkers);
    if (!fifo) return fifo.error();
    plan.fifoRatio = fifo->allocation.work / unit.work;
  } else {
    auto solved = solve(problem, algorithm, selectWorkers);
    if (!solved) return solved.error();
    unit = std::move(solved->allocation);
    plan.negativeShare = solved->negativeShare;
  }

  if (goal.lifespan) {
    plan.allocation = scaledTo(unit, *goal.lifespan);
  } else {
    plan.allocation = scaledTo(unit, lifespanFor(unit, *goal.work));
    plan.allocation.work = *goal.work;  // exact, not the rounded sum
    const bool exact = algorithm == WorksharingAlgorithm::kBest && selectWorkers &&
                       plan.provenOptimal.value_or(false);
    plan.makespanLowerBound = exact ? plan.allocation.lifespan
                                    : makespanLowerBound(problem, *goal.work, plan.theorem5Ratio);
  }
  if (plan.negativeShare) plan.negativeShare->units = plan.allocation.units[plan.negativeShare->worker];
  std::vector<char> used(problem.workers.size(), 0);
  for (int w : plan.allocation.protocol.serveOrder) used[w] = 1;
  for (int w = 0; w < static_cast<int>(used.size()); ++w)
    if (!used[w]) plan.leftOut.push_back(w);
  return plan;
}

}  // namespace hnow::planner
