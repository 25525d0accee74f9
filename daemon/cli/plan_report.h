#pragma once
// The result of `hnow plan` in the user's terms (node names, seconds),
// independent of how it is printed: table, JSON or Gantt chart.
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "cli/gantt_chart.h"
#include "cli/two_level_details.h"
#include "cli/multicast_details.h"
#include "cli/worksharing_details.h"
#include "planner/transfer.h"

namespace hnow::cli {

struct PlanReport {
  std::string op;
  std::string algo;
  double makespan = 0.0;
  std::optional<double> lowerBound;
  std::vector<std::string> nodeNames;  // Gantt rows; transfers index into it
  planner::Schedule transfers;         // in the order the algorithm scheduled them
  planner::SearchStats stats;
  std::optional<bool> provenOptimal;   // exact searches only

  // Results beyond the common fields: each op that has some adds its struct
  // to this variant, and plan_json.cc / plan_table.cc print it.
  std::variant<std::monostate, TwoLevelDetails, MulticastDetails, WorksharingDetails> details;
  // An op whose chart is not "one bar per transfer endpoint" sets its own.
  std::optional<GanttChart> chart;
};

}  // namespace hnow::cli
