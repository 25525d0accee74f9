#pragma once
// A schedule is a list of point-to-point transfers between node indices.
// Every model in planner/ (broadcast, reduction, later multicast and
// worksharing) expresses its output in these terms so one validator and one
// Gantt writer serve them all.
#include <vector>

namespace hnow::planner {

struct Transfer {
  int from = 0;
  int to = 0;
  double start = 0.0;
  double end = 0.0;
};

using Schedule = std::vector<Transfer>;

// How much work a search did: reported by `hnow plan --json` as "stats".
struct SearchStats {
  long long searchNodes = 0;
  double seconds = 0.0;
};

}  // namespace hnow::planner
