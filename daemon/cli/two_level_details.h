#pragma once
// What `hnow plan` reports for op = "cluster-broadcast" | "cluster-multicast"
// beyond the common fields (seed 001).
#include <string>
#include <vector>

namespace hnow::cli {

struct ClusterOutcome {
  std::string name;
  int size = 0;
  int members = 0;         // nodes that need the message
  int degree = 0;          // 0 = no limit
  double reachedAt = -1;   // when its first copy arrived (0 for the source's), < 0 if never
  double doneAt = -1;      // when its last member got the message, < 0 if it has none
};

struct TwoLevelDetails {
  std::string model;    // "blocking" | "postal"
  std::string variant;  // "lcf", "lcf-multicast", "bounded-degree", "bounded-size", "interleaved-lcf"
  double localTime = 0.0;
  double globalTime = 0.0;
  int maxGlobal = 0;    // 0 = no limit
  int globalTransfers = 0;
  // The lower bounds whose maximum is the report's lower_bound.
  double doublingBound = 0.0;   // ceil(log2 m) local times
  double freeLocalBound = 0.0;  // pC (postal: pC + c')
  double combinedBound = 0.0;   // Theorem 3.2 / 4.2 / 5.4; 0 where none applies
  int globalSteps = 0;          // p (blocking model only)
  std::vector<ClusterOutcome> clusters;
};

}  // namespace hnow::cli
