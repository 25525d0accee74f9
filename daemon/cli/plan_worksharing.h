#pragma once
// `hnow plan` for op = "worksharing" (seed 002).
#include "cli/plan_report.h"
#include "conf/worksharing_request.h"
#include "base/result.h"

namespace hnow::cli {

hnow::Result<PlanReport> runWorksharingPlan(const conf::WorksharingRequest& request);

}  // namespace hnow::cli
