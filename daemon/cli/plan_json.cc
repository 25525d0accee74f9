// The only translation unit of the CLI's planner output that includes
// nlohmann/json (slow to compile).
#include <nlohmann/json.hpp>

#include "cli/plan_output.h"

namespace hnow::cli {

namespace {

nlohmann::ordered_json timeOrNull(double t) { return t < 0 ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(t); }

// op = "cluster-broadcast" | "cluster-multicast" (seed 001).
void addTwoLevel(nlohmann::ordered_json& out, const TwoLevelDetails& d) {
  out["model"] = d.model;
  out["variant"] = d.variant;
  out["local_time"] = d.localTime;
  out["global_time"] = d.globalTime;
  out["max_global"] = d.maxGlobal > 0 ? nlohmann::ordered_json(d.maxGlobal) : nullptr;
  out["global_transfers"] = d.globalTransfers;
  out["lower_bounds"] = {{"log_n", d.doublingBound},
                         {"p_c", d.freeLocalBound},
                         {"theorem", d.combinedBound},
                         {"p", d.model == "postal" ? nlohmann::ordered_json(nullptr)
                                                   : nlohmann::ordered_json(d.globalSteps)}};
  auto& clusters = out["clusters"] = nlohmann::ordered_json::array();
  for (const ClusterOutcome& c : d.clusters) {
    clusters.push_back({{"name", c.name},
                        {"size", c.size},
                        {"members", c.members},
                        {"degree", c.degree > 0 ? nlohmann::ordered_json(c.degree) : nullptr},
                        {"reached_at", timeOrNull(c.reachedAt)},
                        {"done_at", timeOrNull(c.doneAt)}});
  }
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
  if (const auto* twoLevel = std::get_if<TwoLevelDetails>(&report.details)) addTwoLevel(out, *twoLevel);
  return out.dump(2) + "\n";
}

}  // namespace hnow::cli
