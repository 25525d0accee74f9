#pragma once
// `hnow run`: a divisible job over the cluster. hnowd reads
// --input (this machine is hnowd's, or the path is one it shares), cuts it
// into units by --split, calibrates CMD per agent, plans shares by seed
// 002's worksharing model and runs them; results are concatenated in input
// order (--concat) or combined by --reduce CMD along a seed 003 reduction.
// The result goes to --output (on hnowd's machine, written whole or not at
// all) or to stdout; the report to stderr, or as JSON to stdout (--json).
#include <string>
#include <vector>

#include "core/send_operation.h"

namespace hnow::cli {

struct RunOptions {
  std::string configPath;
  std::string input;
  std::string split = "lines";
  std::string command;
  bool shell = false;
  std::vector<std::string> to;
  std::string order = "auto";
  bool concat = false;
  std::string reduce;
  std::string output;
  bool json = false;
  std::string ganttPath;
  double slack = 0.0;
  std::string strategy = "plan";  // bench baselines: equal, self
  std::uint64_t blockBytes = 1 << 20;
  int replicas = 1;
  std::string rounds = "auto";  // auto or 1-100
};

// 0 on success, 1 when the job failed or hnowd refused, 2 for bad options.
int runRunCommand(const RunOptions& options);

struct RunAgentLine {
  std::string name;
  std::uint64_t units = 0, plannedUnits = 0;
  double computeS = 0, idleS = 0, secondsPerUnit = 0;
  std::vector<std::uint64_t> shareUnits;  // units planned for it in each round
};
struct RunBarLine {
  std::string row, kind;
  double start = 0, end = 0;
};
struct RunReportView {
  bool finished = false;
  std::string error, algorithm, phase, output, reduction;
  double predictedS = 0, elapsedS = 0;
  std::vector<RunAgentLine> agents;
  unsigned reissued = 0;
  std::uint64_t units = 0, outputSize = 0;
  std::vector<RunBarLine> bars;
  unsigned rounds = 0;
};

// {"predicted_s", "actual_s", "agents": [{"name", "units", "compute_s",
// "idle_s", "share_units"}], "reissued", "plan", "rounds", "reduction", "units", "output", "output_bytes"}
std::string runJson(const RunReportView& report);
std::string runTable(const RunReportView& report);
std::string runGanttSvg(const RunReportView& report);

}  // namespace hnow::cli
