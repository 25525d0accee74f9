#include "cli/plan_two_level.h"

#include "cli/number_format.h"

#include <algorithm>
#include <chrono>
#include <cstdio>

#include "planner/clusters/two_level_bounds.h"
#include "planner/clusters/two_level_check.h"
#include "planner/clusters/two_level_degree.h"
#include "planner/clusters/two_level_lcf.h"
#include "planner/clusters/two_level_postal.h"

namespace hnow::cli {

namespace {

using planner::ClusterLayout;
using planner::Schedule;
using planner::TwoLevelInstance;

// Rows are nodes; a blocking transfer occupies both ends for its whole
// length, a postal one the sender for the first local time and the receiver
// for the last (seed 001 §6). Global transfers get their own colours.
GanttChart chartOf(const PlanReport& report, const TwoLevelInstance& instance) {
  const ClusterLayout layout(instance.sizes);
  const bool postal = instance.model == planner::TwoLevelModel::kPostal;
  GanttChart chart;
  chart.title = report.op + " (" + report.algo + (postal ? ", postal" : "") + "): makespan " +
                shortNumber(report.makespan) + " s";
  chart.rows = report.nodeNames;
  chart.makespan = report.makespan;
  for (const planner::Transfer& x : report.transfers) {
    const bool global = layout.clusterOf(x.from) != layout.clusterOf(x.to);
    const std::string label = report.nodeNames[x.from] + " → " + report.nodeNames[x.to] + "  " +
                              shortNumber(x.start) + "–" + shortNumber(x.end) + " s" +
                              (global ? " (global)" : " (local)");
    const double sendEnd = postal ? x.start + instance.localTime : x.end;
    const double receiveStart = postal ? x.end - instance.localTime : x.start;
    chart.bars.push_back({x.from, x.start, sendEnd, global ? "global send" : "send", label});
    chart.bars.push_back({x.to, receiveStart, x.end, global ? "global receive" : "receive", label});
  }
  return chart;
}

std::vector<ClusterOutcome> clusterOutcomes(const conf::TwoLevelRequest& request,
                                            const TwoLevelInstance& instance, const Schedule& s) {
  const ClusterLayout layout(instance.sizes);
  std::vector<double> arrival(layout.nodes(), -1.0);
  arrival[0] = 0.0;
  for (const planner::Transfer& x : s) arrival[x.to] = x.end;
  std::vector<ClusterOutcome> out;
  for (int c = 0; c < layout.clusters(); ++c) {
    ClusterOutcome o;
    o.name = request.clusters[c].name;
    o.size = instance.sizes[c];
    o.members = instance.needed[c];
    o.degree = request.clusters[c].degree;
    for (int j = 0; j < o.size; ++j) {
      const double at = arrival[layout.firstNode(c) + j];
      if (at >= 0 && (o.reachedAt < 0 || at < o.reachedAt)) o.reachedAt = at;
      if (j < o.members) o.doneAt = std::max(o.doneAt, at);
    }
    out.push_back(std::move(o));
  }
  return out;
}

}  // namespace

hnow::Result<PlanReport> planTwoLevel(const conf::TwoLevelRequest& request) {
  const bool multicast = request.op == conf::TwoLevelRequest::Op::kMulticast;
  TwoLevelInstance instance;
  planner::GlobalLimits limits;
  for (const auto& c : request.clusters) {
    instance.sizes.push_back(c.size);
    instance.needed.push_back(multicast ? c.members : c.size);
    limits.degree.push_back(c.degree);
  }
  instance.localTime = request.localTime;
  instance.globalTime = request.globalTime;
  instance.model = request.postal ? planner::TwoLevelModel::kPostal : planner::TwoLevelModel::kBlocking;
  limits.maxGlobal = request.maxGlobal;
  const bool degreeBound = std::any_of(limits.degree.begin(), limits.degree.end(),
                                       [](int d) { return d > 0; });

  PlanReport report;
  report.op = multicast ? "cluster-multicast" : "cluster-broadcast";
  report.algo = request.algo;
  for (const auto& c : request.clusters)
    for (int i = 0; i < c.size; ++i) report.nodeNames.push_back(c.name + "." + std::to_string(i));

  TwoLevelDetails details;
  const Stopwatch stopwatch;
  if (request.algo == "interleaved-lcf") {
    details.variant = "interleaved-lcf";
    report.transfers = planner::interleavedLcf(instance);
  } else if (degreeBound) {
    details.variant = "bounded-degree";
    report.transfers = planner::boundedDegreeLcf(instance, limits.degree, multicast);
  } else if (limits.maxGlobal > 0) {
    details.variant = "bounded-size";
    report.transfers = planner::boundedSizeLcf(instance, limits.maxGlobal);
  } else {
    details.variant = multicast ? "lcf-multicast" : "lcf";
    report.transfers = multicast ? planner::lcfMulticast(instance) : planner::largestClusterFirst(instance);
  }
  report.stats.seconds =
      stopwatch.seconds();

  const Result<double> makespan = planner::checkTwoLevel(instance, limits, report.transfers);
  if (!makespan)
    return hnow::Error{"internal error: the " + details.variant + " schedule is invalid: " +
                       makespan.error().message};
  report.makespan = *makespan;

  const planner::TwoLevelBounds bounds = planner::twoLevelLowerBound(instance, limits, multicast);
  report.lowerBound = bounds.value();
  details.model = request.postal ? "postal" : "blocking";
  details.localTime = instance.localTime;
  details.globalTime = instance.globalTime;
  details.maxGlobal = limits.maxGlobal;
  details.globalTransfers = planner::globalTransferCount(ClusterLayout(instance.sizes), report.transfers);
  details.doublingBound = bounds.doubling;
  details.freeLocalBound = bounds.freeLocal;
  details.combinedBound = bounds.combined;
  details.globalSteps = bounds.globalSteps;
  details.clusters = clusterOutcomes(request, instance, report.transfers);
  report.chart = chartOf(report, instance);
  report.details = std::move(details);
  return report;
}

}  // namespace hnow::cli
