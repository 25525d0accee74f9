#pragma once
// `hnow plan` for op = "worksharing" (seed 002).
#include "base/result.h"
#include "cli/plan_report.h"
#include "conf/worksharing_request.h"

namespace hnow::cli {

hnow::Result<PlanReport> runWorksharingPlan(const conf::WorksharingRequest& request);

}  // namespace hnow::cli
