#pragma once
// The three ways `hnow plan` shows a plan.
#include <string>

#include "cli/plan_report.h"

namespace hnow::cli {

// A readable summary and one row per transfer.
std::string planTable(const PlanReport& report);

// {"op","algo","makespan","lower_bound","transfers":[{"from","to","start","end"}],
//  "stats":{"search_nodes","seconds"}}; transfers in scheduling order.
std::string planJson(const PlanReport& report);

}  // namespace hnow::cli
