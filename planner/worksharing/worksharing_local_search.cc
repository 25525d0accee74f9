#include "planner/worksharing/worksharing_local_search.h"

#include <algorithm>
#include <optional>
#include <utility>

namespace hnow::planner {

namespace {

// The allocation at L = 1 if the protocol is feasible (every share >= 0).
std::optional<Allocation> feasible(const WorksharingProblem& problem, const Protocol& protocol) {
  auto solved = solveProtocol(problem, protocol, 1.0);
  if (!solved || smallestShare(*solved) < 0.0) return std::nullopt;
  return std::move(solved).value();
}

bool improves(const std::optional<Allocation>& candidate, const Allocation& best) {
  return candidate && candidate->work > best.work * (1.0 + 1e-12);
}

// One pass over the moves; true if one was taken.
bool improveOnce(const WorksharingProblem& problem, Allocation& best, bool selectWorkers) {
  Protocol p = best.protocol;
  const int k = static_cast<int>(p.serveOrder.size());
  for (auto* order : {&p.serveOrder, &p.returnOrder}) {
    for (int a = 0; a < k; ++a)
      for (int b = a + 1; b < k; ++b) {
        std::swap((*order)[a], (*order)[b]);
        if (auto c = feasible(problem, p); improves(c, best)) {
          best = std::move(*c);
          return true;
        }
        std::swap((*order)[a], (*order)[b]);
      }
  }
  if (selectWorkers && k > 1) {
    for (int w : best.protocol.serveOrder) {
      Protocol q;
      for (int x : best.protocol.serveOrder)
        if (x != w) q.serveOrder.push_back(x);
      for (int x : best.protocol.returnOrder)
        if (x != w) q.returnOrder.push_back(x);
      if (auto c = feasible(problem, q); improves(c, best)) {
        best = std::move(*c);
        return true;
      }
    }
  }
  return false;
}

}  // namespace

Allocation improveByLocalSearch(const WorksharingProblem& problem, const Allocation& start,
                                bool selectWorkers) {
  Allocation best = scaledTo(start, 1.0);
  while (improveOnce(problem, best, selectWorkers)) {
  }
  return scaledTo(best, start.lifespan);
}

}  // namespace hnow::planner
