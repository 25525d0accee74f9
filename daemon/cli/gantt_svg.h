#pragma once
// An SVG Gantt chart: one row per node, a bar per activity, the makespan
// marked. Generic over bar kinds so every op (and, later, planned-vs-actual
// transfers) draws with the same code.
#include <string>
#include <vector>

#include "cli/gantt_chart.h"
#include "cli/plan_report.h"

namespace hnow::cli {

// The report's own chart when it has one; otherwise a send bar on the
// sender's row and a receive bar on the receiver's row per transfer.
GanttChart ganttOf(const PlanReport& report);

std::string renderGanttSvg(const GanttChart& chart);

}  // namespace hnow::cli
