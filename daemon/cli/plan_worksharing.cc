#include "cli/plan_worksharing.h"

#include "cli/number_format.h"

#include <chrono>
#include <cstdio>

#include "planner/worksharing/worksharing_check.h"
#include "planner/worksharing/worksharing_plan.h"

namespace hnow::cli {

namespace {

using planner::WorksharingAlgorithm;

WorksharingAlgorithm algorithmNamed(const std::string& algo) {
  if (algo == "lifo") return WorksharingAlgorithm::kLifo;
  if (algo == "small-results") return WorksharingAlgorithm::kSmallResults;
  if (algo == "best") return WorksharingAlgorithm::kBest;
  return WorksharingAlgorithm::kFifo;
}

// Rows: the master's serve port, its return port, then the workers in serve
// order (those left out last, with no bars).
GanttChart chartOf(const PlanReport& report, const WorksharingDetails& details) {
  const std::string& master = report.nodeNames[0];
  GanttChart chart;
  chart.title = "worksharing (" + report.algo + "): " + shortNumber(details.work) + " units in " +
                shortNumber(report.makespan) + " s";
  chart.makespan = report.makespan;
  chart.rows = {master + " serve", master + " return"};
  for (const WorksharingShare& s : details.allocations) {
    const int row = static_cast<int>(chart.rows.size());
    const std::string& name = report.nodeNames[s.node];
    chart.rows.push_back(name);
    const std::string units = shortNumber(s.units) + " units";
    chart.bars.push_back({0, s.sendStart, s.sendEnd, "send", "serve " + name + ": " + units});
    chart.bars.push_back({1, s.returnStart, s.returnEnd, "return", "results of " + name + ": " + units});
    chart.bars.push_back({row, s.sendStart, s.sendEnd, "receive", name + " receives " + units});
    chart.bars.push_back({row, s.sendEnd, s.computeEnd, "compute", name + " computes " + units});
    chart.bars.push_back({row, s.returnStart, s.returnEnd, "return", name + " returns its results"});
  }
  for (int node : details.leftOut) chart.rows.push_back(report.nodeNames[node] + " (left out)");
  return chart;
}

}  // namespace

hnow::Result<PlanReport> runWorksharingPlan(const conf::WorksharingRequest& request) {
  planner::WorksharingProblem problem;
  problem.resultRatio = request.resultRatio;
  PlanReport report;
  report.op = "worksharing";
  report.algo = request.algo;
  report.nodeNames.push_back(request.master);  // node 0; worker i is node i + 1
  for (const auto& w : request.workers) {
    problem.workers.push_back({w.linkTime, w.computeTime});
    report.nodeNames.push_back(w.name);
  }
  const Stopwatch stopwatch;
  auto plan = planner::planWorksharing(problem, algorithmNamed(request.algo), request.selectWorkers,
                                       {request.lifespan, request.work});
  report.stats.seconds = stopwatch.seconds();
  if (!plan) return plan.error();
  if (plan->negativeShare)
    return hnow::Error{
        "with select_workers = false every worker is kept, and " + request.algo + " then gives worker '" +
        request.workers[plan->negativeShare->worker].name + "' a negative share (" +
        shortNumber(plan->negativeShare->units) +
        " units): the plan is infeasible. Remove select_workers (or set it to true) so that "
        "Proposition 1 leaves out the workers that do not pay off"};

  auto timeline = planner::replayAllocation(problem, plan->allocation);
  if (!timeline) return hnow::Error{"internal error: the " + request.algo + " allocation cannot be replayed: " + timeline.error().message};
  const Result<double> makespan = planner::checkWorksharing(problem, *timeline, plan->allocation.lifespan);
  if (!makespan)
    return hnow::Error{"internal error: the " + request.algo + " allocation is invalid: " + makespan.error().message};

  report.makespan = *makespan;
  report.lowerBound = plan->makespanLowerBound;
  report.provenOptimal = plan->provenOptimal;
  report.stats.searchNodes = plan->stats.searchNodes;
  WorksharingDetails details;
  details.work = plan->allocation.work;
  details.resultRatio = request.resultRatio;
  details.goal = request.lifespan ? "lifespan" : "work";
  details.selectWorkers = request.selectWorkers;
  details.fifoRatio = plan->fifoRatio;
  details.fifoGuarantee = plan->theorem5Ratio;
  for (int w : plan->leftOut) details.leftOut.push_back(w + 1);
  // Transfers: the serve messages in serve order, then the returns in return order.
  std::vector<planner::Transfer> returns(timeline->workers.size());
  for (const planner::WorkerTimeline& t : timeline->workers) {
    const int node = t.worker + 1;
    details.allocations.push_back({node, t.units, t.servePosition, t.returnPosition, t.sendStart,
                                   t.sendEnd, t.computeEnd, t.returnStart, t.returnEnd});
    report.transfers.push_back({0, node, t.sendStart, t.sendEnd});
    returns[t.returnPosition - 1] = {node, 0, t.returnStart, t.returnEnd};
  }
  report.transfers.insert(report.transfers.end(), returns.begin(), returns.end());
  report.chart = chartOf(report, details);
  report.details = std::move(details);
  return report;
}

}  // namespace hnow::cli
