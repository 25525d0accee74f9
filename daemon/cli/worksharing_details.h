#pragma once
// What `hnow plan` reports for op = "worksharing" beyond the common fields
// (docs/worksharing.md).
#include <optional>
#include <string>
#include <vector>

namespace hnow::cli {

struct WorksharingShare {
  int node = 0;  // index into PlanReport::nodeNames
  double units = 0.0;
  int serve = 0;     // 1-based position in the master's serve order
  int returns = 0;   // 1-based position in the master's return order
  double sendStart = 0.0, sendEnd = 0.0, computeEnd = 0.0, returnStart = 0.0, returnEnd = 0.0;
};

struct WorksharingDetails {
  double work = 0.0;                 // total units
  double resultRatio = 0.0;
  std::string goal;                  // "lifespan" or "work": what the request fixed
  bool selectWorkers = true;
  std::vector<WorksharingShare> allocations;  // in serve order
  std::vector<int> leftOut;          // node indices of workers given nothing
  std::optional<double> fifoRatio;   // best only: FIFO's work / best's work
  double fifoGuarantee = 1.0;        // Theorem 5: tau_min / tau_max
};

}  // namespace hnow::cli
