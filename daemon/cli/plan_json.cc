// The only translation unit of the CLI's planner output that includes
// nlohmann/json (slow to compile).
#include <nlohmann/json.hpp>

#include "cli/plan_output.h"

namespace hnow::cli {

namespace {

// docs/worksharing.md: "work", "allocations" in serve order, and the rest.
void addWorksharing(nlohmann::ordered_json& out, const PlanReport& report, const WorksharingDetails& ws) {
  out["work"] = ws.work;
  out["goal"] = ws.goal;
  out["result_ratio"] = ws.resultRatio;
  out["select_workers"] = ws.selectWorkers;
  auto& shares = out["allocations"] = nlohmann::ordered_json::array();
  for (const WorksharingShare& s : ws.allocations) {
    shares.push_back({{"node", report.nodeNames[s.node]},
                      {"units", s.units},
                      {"serve", s.serve},
                      {"return", s.returns},
                      {"send_start", s.sendStart},
                      {"send_end", s.sendEnd},
                      {"compute_end", s.computeEnd},
                      {"return_start", s.returnStart},
                      {"return_end", s.returnEnd}});
  }
  auto& leftOut = out["left_out"] = nlohmann::ordered_json::array();
  for (int node : ws.leftOut) leftOut.push_back(report.nodeNames[node]);
  out["fifo_ratio"] = ws.fifoRatio ? nlohmann::ordered_json(*ws.fifoRatio) : nullptr;
  out["fifo_guarantee"] = ws.fifoGuarantee;
}

}  // namespace

std::string planJson(const PlanReport& report) {
  nlohmann::ordered_json out;
  out["op"] = report.op;
  out["algo"] = report.algo;
  out["makespan"] = report.makespan;
  out["lower_bound"] = report.lowerBound ? nlohmann::ordered_json(*report.lowerBound) : nullptr;
  auto& transfers = out["transfers"] = nlohmann::ordered_json::array();
  for (const auto& x : report.transfers) {
    transfers.push_back({{"from", report.nodeNames[x.from]},
                         {"to", report.nodeNames[x.to]},
                         {"start", x.start},
                         {"end", x.end}});
  }
  out["stats"] = {{"search_nodes", report.stats.searchNodes}, {"seconds", report.stats.seconds}};
  if (report.provenOptimal) out["stats"]["proven_optimal"] = *report.provenOptimal;
  if (const auto* ws = std::get_if<WorksharingDetails>(&report.details)) addWorksharing(out, report, *ws);
  return out.dump(2) + "\n";
}

}  // namespace hnow::cli
