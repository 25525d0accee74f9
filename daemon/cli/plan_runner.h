#pragma once
// Runs the planner for a loaded request. Every schedule is replayed by the
// validator before it is reported: a planner bug is an internal error, never
// a wrong plan printed as if it were right.
#include "base/result.h"
#include "cli/plan_report.h"
#include "conf/plan_request.h"

namespace hnow::cli {

hnow::Result<PlanReport> runPlan(const conf::PlanRequest& request);

}  // namespace hnow::cli
