#pragma once
// An SVG Gantt chart: one row per node, a bar per activity, the makespan
// marked. Generic over bar kinds so every op (and, later, planned-vs-actual
// transfers) draws with the same code.
#include <string>
#include <vector>

#include "cli/plan_report.h"

namespace hnow::cli {

struct GanttBar {
  int row = 0;
  double start = 0.0;
  double end = 0.0;
  std::string kind;   // "send", "receive", ... : picks the colour and legend entry
  std::string label;  // tooltip text
};

struct GanttChart {
  std::string title;
  std::vector<std::string> rows;
  std::vector<GanttBar> bars;
  double makespan = 0.0;
};

// A send bar on the sender's row and a receive bar on the receiver's row per transfer.
GanttChart ganttOf(const PlanReport& report);

std::string renderGanttSvg(const GanttChart& chart);

}  // namespace hnow::cli
