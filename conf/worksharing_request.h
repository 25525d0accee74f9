#pragma once
// op = "worksharing": a divisible job shared by a master among workers
// (seed 002). See docs/worksharing.md for the request format.
#include <optional>
#include <string>
#include <vector>

namespace hnow::conf {

struct WorksharingWorker {
  std::string name;
  double linkTime = 0.0;     // `link_time` tau_i: seconds per work unit between master and worker
  double computeTime = 0.0;  // `compute_time` R_i: seconds per work unit, (un)packaging included
};

struct WorksharingRequest {
  std::string algo;              // fifo | lifo | small-results | best
  std::string master = "master"; // the master's name in the plan
  std::vector<WorksharingWorker> workers;
  double resultRatio = 0.0;      // `result_ratio` delta, 0..1
  std::optional<double> lifespan;  // exactly one of lifespan and work
  std::optional<double> work;
  bool selectWorkers = true;     // Proposition 1
};

const std::vector<std::string>& worksharingAlgorithms();

class TableReader;
WorksharingRequest readWorksharing(TableReader& request);

}  // namespace hnow::conf
