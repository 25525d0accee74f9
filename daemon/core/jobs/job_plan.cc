#include "core/jobs/job_plan.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "planner/worksharing/worksharing_check.h"
#include "planner/worksharing/worksharing_plan.h"
#include "planner/worksharing/worksharing_search.h"

namespace hnow::daemon {

namespace {

// An unknown link (no probe yet) is taken as fast: the share is then bounded
// by compute, and the plan still completes.
constexpr double kUnknownLinkBytesPerSecond = 1e9;
// A command that measured as free still costs something; keeps R_i > 0.
constexpr double kMinSecondsPerUnit = 1e-9;

planner::WorksharingProblem problemOf(const JobPlanInput& input) {
  planner::WorksharingProblem problem;
  problem.resultRatio = std::clamp(input.resultRatio, 0.0, 1.0);
  for (const auto& w : input.workers) {
    const double link = w.linkBytesPerSecond > 0 ? w.linkBytesPerSecond : kUnknownLinkBytesPerSecond;
    problem.workers.push_back({std::max(input.bytesPerUnit, 1.0) / link, std::max(w.secondsPerUnit, kMinSecondsPerUnit)});
  }
  return problem;
}

// Largest remainders: whole units summing to `total`, each within one of its share.
std::vector<std::uint64_t> roundShares(const std::vector<double>& shares, std::uint64_t total) {
  const double sum = std::accumulate(shares.begin(), shares.end(), 0.0);
  std::vector<std::uint64_t> units(shares.size(), 0);
  std::vector<std::pair<double, std::size_t>> remainders;
  std::uint64_t given = 0;
  for (std::size_t i = 0; i < shares.size(); ++i) {
    const double exact = sum > 0 ? std::max(shares[i], 0.0) * static_cast<double>(total) / sum : 0.0;
    units[i] = static_cast<std::uint64_t>(std::floor(exact));
    given += units[i];
    remainders.push_back({exact - std::floor(exact), i});
  }
  std::sort(remainders.begin(), remainders.end(), [](auto a, auto b) { return a.first > b.first; });
  for (std::size_t k = 0; given < total; k = (k + 1) % remainders.size(), ++given) ++units[remainders[k].second];
  return units;
}

// An allocation in whole units, laid out over the input in serve order,
// with the workers rounded to nothing dropped, and its replayed timeline.
hnow::Result<JobPlan> wholePlanOf(const planner::WorksharingProblem& problem, const planner::Allocation& allocation,
                                  const std::string& name, std::uint64_t units) {
  // Whole units, laid out over the input in serve order.
  std::vector<double> shares;
  for (int w : allocation.protocol.serveOrder) shares.push_back(allocation.units[static_cast<std::size_t>(w)]);
  std::vector<std::uint64_t> rounded = roundShares(shares, units);
  planner::Allocation whole = allocation;
  std::fill(whole.units.begin(), whole.units.end(), 0.0);
  for (std::size_t k = 0; k < rounded.size(); ++k)
    whole.units[static_cast<std::size_t>(allocation.protocol.serveOrder[k])] = static_cast<double>(rounded[k]);
  // Drop workers rounded to nothing from both orders.
  auto keep = [&](int w) { return whole.units[static_cast<std::size_t>(w)] > 0; };
  planner::Protocol protocol;
  std::copy_if(allocation.protocol.serveOrder.begin(), allocation.protocol.serveOrder.end(),
               std::back_inserter(protocol.serveOrder), keep);
  std::copy_if(allocation.protocol.returnOrder.begin(), allocation.protocol.returnOrder.end(),
               std::back_inserter(protocol.returnOrder), keep);
  whole.protocol = protocol;
  auto timeline = planner::replayAllocation(problem, whole);
  if (!timeline) return timeline.error();
  JobPlan plan;
  plan.algorithm = name;
  plan.predictedSeconds = timeline->makespan;
  std::uint64_t next = 0;
  for (const auto& t : timeline->workers) {  // serve order
    PlannedShare share;
    share.worker = t.worker;
    share.units = static_cast<std::uint64_t>(std::llround(t.units));
    share.firstUnit = next;
    next += share.units;
    share.serveStart = t.sendStart;
    share.serveEnd = t.sendEnd;
    share.computeEnd = t.computeEnd;
    share.returnStart = t.returnStart;
    share.returnEnd = t.returnEnd;
    plan.shares.push_back(share);
  }
  for (int w : protocol.returnOrder)
    for (std::size_t k = 0; k < plan.shares.size(); ++k)
      if (plan.shares[k].worker == w) plan.returnOrder.push_back(static_cast<int>(k));
  return plan;
}

}  // namespace

hnow::Result<JobPlan> planJob(const JobPlanInput& input) {
  if (input.workers.empty()) return hnow::Error{"no agent can take a share"};
  if (input.units == 0) return hnow::Error{"the input has no work unit (is it empty?)"};
  const planner::WorksharingProblem problem = problemOf(input);
  const double work = static_cast<double>(input.units);

  std::vector<std::pair<std::string, planner::WorksharingAlgorithm>> candidates;
  if (input.order == "fifo") candidates = {{"fifo", planner::WorksharingAlgorithm::kFifo}};
  else if (input.order == "lifo") candidates = {{"lifo", planner::WorksharingAlgorithm::kLifo}};
  else if (input.order == "auto") {
    candidates = {{"fifo", planner::WorksharingAlgorithm::kFifo},
                  {"lifo", planner::WorksharingAlgorithm::kLifo}};
    if (problem.workers.size() <= static_cast<std::size_t>(planner::kMaxSmallResultsWorkers))
      candidates.push_back({"small-results", planner::WorksharingAlgorithm::kSmallResults});
    if (problem.workers.size() <= static_cast<std::size_t>(planner::kMaxBestWorkers))
      candidates.push_back({"best", planner::WorksharingAlgorithm::kBest});
  } else if (input.order != "equal") {
    return hnow::Error{"unknown --order '" + input.order + "'; use fifo, lifo or auto"};
  }

  std::optional<JobPlan> chosen;
  std::string problems;
  std::vector<planner::Allocation> allocations;
  std::vector<std::string> names;
  if (input.order == "equal") {
    planner::Allocation equal;
    for (std::size_t w = 0; w < problem.workers.size(); ++w) equal.protocol.serveOrder.push_back(static_cast<int>(w));
    equal.protocol.returnOrder = equal.protocol.serveOrder;
    equal.units.assign(problem.workers.size(), work / static_cast<double>(problem.workers.size()));
    equal.work = work;
    allocations.push_back(equal);
    names.push_back("equal");
  }
  for (const auto& [name, algorithm] : candidates) {
    planner::WorksharingGoal goal;
    goal.work = work;
    auto planned = planner::planWorksharing(problem, algorithm, /*selectWorkers=*/true, goal);
    if (!planned || planned->negativeShare) {
      problems += (problems.empty() ? "" : "; ") + name + ": " +
                  (planned ? std::string("a negative share") : planned.error().message);
      continue;
    }
    allocations.push_back(planned->allocation);
    names.push_back(name);
  }
  for (std::size_t c = 0; c < allocations.size(); ++c) {
    auto plan = wholePlanOf(problem, allocations[c], names[c], input.units);
    if (!plan) {
      problems += (problems.empty() ? "" : "; ") + names[c] + ": " + plan.error().message;
      continue;
    }
    if (!chosen || plan->predictedSeconds < chosen->predictedSeconds - 1e-12) chosen = std::move(plan).value();
  }
  if (!chosen) return hnow::Error{"no protocol fits: " + problems};
  return *std::move(chosen);
}

}  // namespace hnow::daemon
