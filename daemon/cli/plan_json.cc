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

// op = "multicast": each transfer's message (0-based [[message]] index) and
// timing, and each node's task list in execution order (seed 004 §3.1).
void addMulticast(nlohmann::ordered_json& out, const PlanReport& report, const MulticastDetails& details) {
  const auto& names = report.nodeNames;
  const auto& transfers = details.plan.transfers;
  for (size_t i = 0; i < transfers.size(); ++i) {
    auto& entry = out["transfers"][i];
    entry["message"] = transfers[i].message;
    entry["send_end"] = transfers[i].sendEnd;
    entry["posted"] = transfers[i].posted;
    entry["arrival"] = details.arrivals[i];
    entry["receive_start"] = transfers[i].recvStart;
  }
  auto& tasks = out["tasks"] = nlohmann::ordered_json::object();
  for (size_t v = 0; v < names.size(); ++v) {
    auto& list = tasks[names[v]] = nlohmann::ordered_json::array();
    for (const auto& task : details.plan.taskLists[v]) {
      const auto& x = transfers[task.transfer];
      if (task.send) {
        list.push_back({{"op", "send"}, {"message", x.message}, {"to", names[x.to]},
                        {"start", x.sendStart}, {"end", x.sendEnd}});
      } else {
        list.push_back({{"op", "receive"}, {"message", x.message}, {"from", names[x.from]},
                        {"posted", x.posted}, {"arrival", details.arrivals[task.transfer]},
                        {"start", x.recvStart}, {"end", x.recvEnd}});
      }
    }
  }
  out["preemptive"] = details.preemptive;
}

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
  if (const auto* twoLevel = std::get_if<TwoLevelDetails>(&report.details)) addTwoLevel(out, *twoLevel);
  if (const auto* multicast = std::get_if<MulticastDetails>(&report.details)) addMulticast(out, report, *multicast);
  if (const auto* ws = std::get_if<WorksharingDetails>(&report.details)) addWorksharing(out, report, *ws);
  return out.dump(2) + "\n";
}

}  // namespace hnow::cli
