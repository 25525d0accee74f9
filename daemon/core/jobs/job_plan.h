#pragma once
// `hnow run`: the measured rates of each agent become seed 002's worksharing
// problem (docs/architecture.md "From measured rates to each model": tau_i =
// unit bytes / link rate, R_i = calibrated seconds per unit, which already
// include the agent's emulated compute factor), the planner picks the protocol
// and shares, and the shares are rounded to whole units and laid out over the
// input in serve order. Pure: values in, a plan out.
#include <cstdint>
#include <string>
#include <vector>

#include "base/result.h"

namespace hnow::daemon {

struct JobWorkerRates {
  std::string name;
  double linkBytesPerSecond = 0.0;  // min(hnowd's uplink, the agent's downlink); 0: unknown
  double secondsPerUnit = 0.0;      // calibrated, compute factor included
};

struct JobPlanInput {
  std::vector<JobWorkerRates> workers;
  std::uint64_t units = 0;
  double bytesPerUnit = 0.0;  // the input's mean
  double resultRatio = 0.0;   // delta: result bytes per input byte, clamped to [0, 1] (seed 002 §II)
  // fifo | lifo | auto (the fastest of fifo, lifo, small-results, best), or
  // the bench's baseline "equal": the same units for everyone, FIFO in index order.
  std::string order = "auto";
};

struct PlannedShare {
  int worker = 0;                 // index into JobPlanInput::workers
  std::uint64_t firstUnit = 0;    // shares tile the input in serve order
  std::uint64_t units = 0;
  double serveStart = 0.0, serveEnd = 0.0, computeEnd = 0.0, returnStart = 0.0, returnEnd = 0.0;
  int round = 0;                  // rounds (core/jobs/job_rounds.h): which one, from 0
};

struct JobPlan {
  std::string algorithm;            // fifo, lifo, small-results or best
  std::vector<PlannedShare> shares; // in serve order, each with units > 0
  std::vector<int> returnOrder;     // indices into `shares`
  double predictedSeconds = 0.0;    // the replay of the rounded shares
};

// An error value when there is no worker or no unit.
hnow::Result<JobPlan> planJob(const JobPlanInput& input);

}  // namespace hnow::daemon
