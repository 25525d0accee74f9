#include "cli/plan_multicast.h"

#include "cli/number_format.h"

#include <chrono>
#include <cstdio>
#include <map>

#include "planner/algorithms.h"
#include "planner/multicast/multicast_bound.h"
#include "planner/multicast/multicast_check.h"
#include "planner/multicast/multicast_heuristics.h"

namespace hnow::cli {

namespace {


// Send, wait (a posted receive whose message is still on the way) and
// receive bars: the non-blocking model's three states of a node.
GanttChart chartOf(const PlanReport& report, const MulticastDetails& details) {
  GanttChart chart;
  chart.title = "multicast (" + report.algo + "): makespan " + shortNumber(report.makespan) + " s";
  chart.rows = report.nodeNames;
  chart.makespan = report.makespan;
  for (const planner::MulticastTransfer& x : details.plan.transfers) {
    const std::string what = "m" + std::to_string(x.message) + " " + report.nodeNames[x.from] + " → " +
                             report.nodeNames[x.to] + "  ";
    chart.bars.push_back({x.from, x.sendStart, x.sendEnd, "send", what + shortNumber(x.sendStart) + "–" + shortNumber(x.sendEnd) + " s"});
    if (x.recvStart > x.posted)
      chart.bars.push_back({x.to, x.posted, x.recvStart, "wait", what + "posted " + shortNumber(x.posted) + " s"});
    chart.bars.push_back({x.to, x.recvStart, x.recvEnd, "receive", what + shortNumber(x.recvStart) + "–" + shortNumber(x.recvEnd) + " s"});
  }
  return chart;
}

}  // namespace

hnow::Result<PlanReport> planMulticastRequest(const conf::MulticastRequest& request) {
  // conf/ accepts only the table's names (planner/algorithms.h).
  const planner::Algorithm& choice = *planner::findAlgorithm(planner::kMulticastUse, request.algo);
  const planner::MulticastInstance& instance = request.instance;
  const Stopwatch stopwatch;
  auto plan = planner::planMulticast(instance, *choice.multicast, {choice.preemptive, request.seed});
  const double planningSeconds = stopwatch.seconds();
  if (!plan) return plan.error();

  const Result<double> makespan = planner::checkMulticastPlan(instance, *plan);
  if (!makespan)
    return hnow::Error{"internal error: the " + request.algo + " schedule is invalid: " + makespan.error().message};

  PlanReport report;
  report.op = "multicast";
  report.algo = request.algo;
  report.nodeNames = request.nodeNames;
  report.transfers = planner::asTransfers(*plan);
  report.makespan = *makespan;
  report.lowerBound = planner::multicastLowerBound(instance);
  report.stats.seconds = planningSeconds;
  MulticastDetails details;
  details.preemptive = choice.preemptive;
  for (const planner::MulticastTransfer& x : plan->transfers)
    details.arrivals.push_back(x.sendEnd + instance.wireTime(x.from, x.to, x.message));
  details.plan = std::move(plan).value();
  report.chart = chartOf(report, details);
  report.details = std::move(details);
  return report;
}

}  // namespace hnow::cli
