#pragma once
// What is measured of each node (docs/architecture.md "From measured rates
// to each model"); the planner derives each model's times from these values.
namespace hnow::planner {

struct NodeRates {
  double uplinkBytesPerSecond = 0.0;
  double downlinkBytesPerSecond = 0.0;
  double sendOverheadSeconds = 0.0;     // S_c: fixed cost of one send
  double receiveOverheadSeconds = 0.0;  // R_c: fixed cost of one receive
  double computeSecondsPerUnit = 0.0;   // job work, for worksharing
};

}  // namespace hnow::planner
