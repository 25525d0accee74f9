#pragma once
// Replay and validation of a worksharing allocation (seed 002 §III): the
// master's one port in each direction, serve before compute before return,
// message lengths tau*w and delta*tau*w, everything within the lifespan.
// Every allocation the planner produces goes through both in the tests, and
// through both in `hnow plan` before it is printed.
#include <string>
#include <vector>

#include "base/result.h"
#include "planner/schedule_check.h"
#include "planner/worksharing/worksharing.h"

namespace hnow::planner {

struct WorkerTimeline {
  int worker = 0;
  double units = 0.0;
  int servePosition = 0;   // 1-based
  int returnPosition = 0;  // 1-based
  double sendStart = 0.0, sendEnd = 0.0;  // the master serves the share
  double computeEnd = 0.0;                // the worker computes right after receipt
  double returnStart = 0.0, returnEnd = 0.0;
};

struct WorksharingTimeline {
  std::vector<WorkerTimeline> workers;  // in serve order
  double makespan = 0.0;                // end of the last return
};

// Discrete-event replay: the master serves the shares back to back from time
// 0 in serve order; each worker computes as soon as its share has arrived;
// the master receives results in return order, each as soon as the worker
// has finished and the previous return is over. An error value for a
// malformed protocol or a negative share (nothing to replay).
Result<WorksharingTimeline> replayAllocation(const WorksharingProblem& problem,
                                             const Allocation& allocation);

// Checks a timeline against the model and the lifespan: the last return's
// end, or an Error naming the first violation found.
Result<double> checkWorksharing(const WorksharingProblem& problem, const WorksharingTimeline& timeline,
                                double lifespan);

}  // namespace hnow::planner
