#pragma once
// Validator and simulator for multiple multicast in the non-blocking-send
// model (seed 004 §2, §3.1). Every multicast algorithm's output goes through
// checkMulticastPlan in the tests and in `hnow plan`.
#include <span>
#include <vector>

#include "base/result.h"
#include "planner/multicast/multicast.h"
#include "planner/schedule_check.h"

namespace hnow::planner {

// Feasibility of timed transfers, first violation reported:
// - §3.1: message k goes from a holder (its source, or a destination whose
//   receive of k has ended) to one of its destinations; every destination
//   receives it exactly once; the source never receives it;
// - §2: a send lasts S(i,m); the message arrives X(i,j)·m after the send
//   ends; the blocking receive is posted, waits, and processes for R(j,m)
//   from max(arrival, posted) on;
// - a node runs one task at a time: its sends and its receives (from posting
//   to completion) do not overlap.
// The makespan is the last receive's completion.
Result<double> checkMulticast(const MulticastInstance& instance,
                              std::span<const MulticastTransfer> transfers);

// The simulator: executes every node's task list in order under §2 (a send
// starts when the previous task completes; a receive is posted then and
// completes at max(arrival, posted) + R) and returns the resulting transfers,
// in the order their receives complete. An error value when a list sends a
// message before holding it, a send has no matching receive (or the reverse),
// or the lists wait on each other forever.
Result<std::vector<MulticastTransfer>> simulateTaskLists(
    const MulticastInstance& instance, const std::vector<std::vector<MulticastTask>>& taskLists);

// Both: the plan's task lists, simulated, give exactly the plan's times (so
// the algorithm's bookkeeping agrees with the model), the lists name the
// plan's transfers, the times are feasible and the makespan is right.
Result<double> checkMulticastPlan(const MulticastInstance& instance, const MulticastPlan& plan);

}  // namespace hnow::planner
