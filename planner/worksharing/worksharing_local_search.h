#pragma once
// A good first incumbent makes the exact search of `best` (worksharing_search.h)
// cut far more: seed 002 §IV-D shows the best protocol is often neither FIFO
// nor LIFO, so we improve them by local moves before the search starts.
#include "planner/worksharing/worksharing.h"

namespace hnow::planner {

// Hill climbing on no-gap protocols (equations (12), seed 002 §V-A) from
// `start`: swap two workers in the serve order, swap two in the return
// order, or (with `selectWorkers`) leave one worker out; the first move that
// raises the work with nonnegative shares is taken, until none does. Each
// move is one direct solve, so this is O(passes * k^2 * k^3) for k workers:
// meant for the small clusters `best` takes. The result is feasible and does
// at least as much work as `start` (returned unchanged if nothing helps).
Allocation improveByLocalSearch(const WorksharingProblem& problem, const Allocation& start,
                                bool selectWorkers);

}  // namespace hnow::planner
