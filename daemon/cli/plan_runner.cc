#include "cli/plan_runner.h"

#include "cli/number_format.h"

#include <chrono>
#include <type_traits>

#include "cli/plan_two_level.h"
#include "cli/plan_multicast.h"
#include "cli/plan_worksharing.h"
#include "planner/algorithms.h"
#include "planner/broadcast/broadcast.h"
#include "planner/broadcast/broadcast_search.h"
#include "planner/reduction/reduction.h"
#include "planner/schedule_check.h"

namespace hnow::cli {

namespace {

using planner::Schedule;

Result<PlanReport> planCollective(const conf::CollectiveRequest& request) {
  std::vector<double> t;
  PlanReport report;
  for (const auto& node : request.nodes) {
    t.push_back(node.sendTime);
    report.nodeNames.push_back(node.name);
  }
  const bool broadcast = request.op == conf::CollectiveRequest::Op::kBroadcast;
  report.op = broadcast ? "broadcast" : "reduce";
  report.algo = request.algo;
  const int root = request.root;
  const std::string& algo = request.algo;
  Stopwatch clock;

  if (broadcast) {
    // conf/ accepts only the table's names (planner/algorithms.h).
    planner::SendTimeBroadcast planned = planner::findAlgorithm(planner::kBroadcastUse, algo)->sendTimes(t, root, {});
    report.transfers = std::move(planned.schedule);
    report.stats.searchNodes = planned.searchNodes;
    report.provenOptimal = planned.provenOptimal;
    report.lowerBound = planner::broadcastLowerBound(t, root);
  } else {
    if (algo == "snf") {
      auto s = planner::slowestNodeFirst(t, root);
      if (!s) return s.error();
      report.transfers = std::move(s).value();
    } else if (algo == "optimal") {
      auto best = planner::optimalReduction(t, root);
      if (!best) return best.error();
      report.transfers = best->schedule;
      report.stats.searchNodes = best->stats.searchNodes;
      report.provenOptimal = best->provenOptimal;
    } else {
      report.transfers = planner::binomialReduction(t, root);
    }
    report.lowerBound = planner::reductionLowerBound(t, root);
  }
  report.stats.seconds = clock.seconds();

  const Result<double> makespan = broadcast ? planner::checkBroadcast(t, root, report.transfers)
                                            : planner::checkReduction(t, root, report.transfers);
  if (!makespan)
    return hnow::Error{"internal error: the " + algo + " schedule is invalid: " + makespan.error().message};
  report.makespan = *makespan;
  return report;
}

// One overload per request type; runPlan dispatches on the variant.
Result<PlanReport> planRequest(const conf::CollectiveRequest& r) { return planCollective(r); }
Result<PlanReport> planRequest(const conf::TwoLevelRequest& r) { return planTwoLevel(r); }
Result<PlanReport> planRequest(const conf::MulticastRequest& r) { return planMulticastRequest(r); }
Result<PlanReport> planRequest(const conf::WorksharingRequest& r) { return runWorksharingPlan(r); }

}  // namespace

Result<PlanReport> runPlan(const conf::PlanRequest& request) {
  return std::visit([](const auto& r) -> Result<PlanReport> { return planRequest(r); }, request);
}

}  // namespace hnow::cli
