#pragma once
// `hnow demo`: hnow's main job shown end to end on one
// machine. A local cluster (hnowd + 8 agents, the lab below), a generated
// file sent with `auto` and with the baselines binomial, chain (host order,
// as Kascade) and flat, every copy's SHA-256 checked against the source's,
// a comparison table and the picture of the auto run's send (its tree,
// planned and achieved rates, the bottleneck); everything it started
// is stopped and its directory removed, also on failure or Ctrl-C.
//
// The lab: two rooms and three classes of PCs, assigned round-robin over the
// host list (agent-1 fast, agent-2 medium, agent-3 slow, agent-4 fast, ...):
//   fast   new-wing  400 Mbit/s up, 400 down
//   medium new-wing  100 Mbit/s up, 400 down
//   slow   old-wing   50 Mbit/s up, 200 down
// and hnowd, the source, on a fast machine (400 Mbit/s up). Old machines are
// slow to send but receive well (their uplinks are shaped, as on a lab whose
// old switches are uplink-limited): a lab where the tree matters, since on
// one with downlinks as slow as uplinks the slowest downlink bounds every
// tree (docs/pipelined-broadcast.md).
#include <cstdint>
#include <string>
#include <vector>

namespace hnow::cli {

struct DemoOptions {
  int agents = 8;
  std::uint64_t size = 256ull << 20;
  bool json = false;
  std::string svgPath = "hnow-demo.svg";  // the picture of the auto run's send
};

// One send of the demo.
struct DemoRun {
  std::string algo;      // as asked: auto, binomial, chain, flat
  std::string plan;      // what ran (auto resolved)
  double predictedS = 0;
  double actualS = 0;
  int verified = 0;      // copies whose SHA-256 matched the source's
  int expected = 0;      // copies expected (one per agent)
  std::string weighed;   // auto: the plans it chose between, for the table
  std::string error;     // the send failed to run or report
};

// 0 when every copy of every run verified; 1 otherwise; 2 for bad options;
// 130 when interrupted.
int runDemo(const DemoOptions& options);

// From `hnow send --json` output: plan, predictions, copies' paths. False
// when the text is not such a report.
bool readSendReport(const std::string& json, DemoRun& run, std::vector<std::string>& paths);
// {"runs": [{"algo", "plan", "predicted_s", "actual_s", "verified", "expected"}]}
std::string demoJson(const std::vector<DemoRun>& runs);
// The comparison table: predicted, actual, verified, actual / auto's actual.
std::string demoTable(const std::vector<DemoRun>& runs, std::uint64_t size, int agents);

}  // namespace hnow::cli
