#pragma once
// `hnow plan` for op = "multicast" (seed 004).
#include "base/result.h"
#include "cli/plan_report.h"
#include "conf/multicast_request.h"

namespace hnow::cli {

// Plans with the requested heuristic, replays the plan through the
// multicast validator and simulator (an internal error if they disagree),
// and adds the §3.2 lower bound, task lists and a Gantt chart with waits.
hnow::Result<PlanReport> planMulticastRequest(const conf::MulticastRequest& request);

}  // namespace hnow::cli
