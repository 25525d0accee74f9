#pragma once
// `hnow plan` for op = "cluster-broadcast" | "cluster-multicast" (seed 001).
#include "base/result.h"
#include "cli/plan_report.h"
#include "conf/two_level_request.h"

namespace hnow::cli {

// Picks the seed's algorithm for the request's model and limits, replays the
// schedule through the two-level validator (an invalid one is an internal
// error) and reports it with the lower bounds, per-cluster times and a Gantt
// chart that tells local from global transfers.
hnow::Result<PlanReport> planTwoLevel(const conf::TwoLevelRequest& request);

}  // namespace hnow::cli
