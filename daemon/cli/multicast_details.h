#pragma once
// What `hnow plan` reports for op = "multicast" beyond the common fields:
// each transfer's message and timing, and each node's task list (seed 004
// §3.1), which is what an agent executes.
#include <vector>

#include "planner/multicast/multicast.h"

namespace hnow::cli {

struct MulticastDetails {
  planner::MulticastPlan plan;  // plan.transfers[i] is PlanReport::transfers[i] in full
  std::vector<double> arrivals; // per transfer: when the message reaches the receiver
  bool preemptive = false;
};

}  // namespace hnow::cli
