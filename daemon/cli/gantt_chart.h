#pragma once
// What a Gantt chart shows, independent of how it is drawn.
#include <string>
#include <vector>

namespace hnow::cli {

struct GanttBar {
  int row = 0;
  double start = 0.0;
  double end = 0.0;
  std::string kind;   // "send", "receive", "compute", ...: picks the colour and legend entry
  std::string label;  // tooltip text
};

// A moment on one row: a vertical tick with a short label (a replan's
// parent change on a send's chart).
struct GanttMark {
  int row = 0;
  double at = 0.0;
  std::string label;    // drawn beside the tick
  std::string tooltip;
};

struct GanttChart {
  std::string title;
  std::vector<std::string> rows;
  std::vector<GanttBar> bars;
  double makespan = 0.0;
  std::vector<GanttMark> marks;
};

}  // namespace hnow::cli
