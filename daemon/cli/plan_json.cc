// The only translation unit of the CLI's planner output that includes
// nlohmann/json (slow to compile).
#include <nlohmann/json.hpp>

#include "cli/plan_output.h"

namespace hnow::cli {

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
  return out.dump(2) + "\n";
}

}  // namespace hnow::cli
