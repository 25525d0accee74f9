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

#include "api/run.h"
#include "base/result.h"

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
  bool adaptiveReplicas = false;  // --replicas adaptive
  std::string rounds = "auto";  // auto or 1-100
  std::string maxRate;  // --max-rate, e.g. 20mbit; "": none
  bool detach = false;  // print the record's id once queued, and leave
  int priority = 0;     // --priority
};

// 0 on success, 1 when the job failed or hnowd refused, 2 for bad options.
int runRunCommand(const RunOptions& options);

// hnowd's report of a run (api/run.h).
using RunReportView = api::RunStatus;

// {"predicted_s", "actual_s", "agents": [{"name", "units", "compute_s",
// "idle_s", "share_units"}], "reissued", "plan", "rounds", "reduction", "units", "output", "output_bytes",
// "max_rate_bps"}
class CoordinatorClient;

// Follows run `id` (record `record`: Ctrl-C cancels it) to its end, its
// progress line on a terminal; the last report.
Result<RunReportView> followRunOnTerminal(CoordinatorClient& client, std::uint64_t id, std::uint64_t record);

// hnowd was lost while following run `record`: what becomes of it. Exit 1.
int reportLostHnowdRunning(std::uint64_t record, const std::string& why);

std::string runJson(const RunReportView& report);
std::string runTable(const RunReportView& report);
std::string runGanttSvg(const RunReportView& report);

}  // namespace hnow::cli
