#include "planner/worksharing/worksharing_check.h"

#include <algorithm>
#include <sstream>
#include <tuple>

namespace hnow::planner {

namespace {

std::string name(int worker) { return "worker " + std::to_string(worker); }

std::string span(double a, double b) {
  std::ostringstream out;
  out << "[" << a << ", " << b << "]";
  return out.str();
}

bool atLeast(double a, double b) { return a >= b || sameTime(a, b); }

// One port per direction: the master's messages in one direction must not
// overlap. `intervals` are (start, end, worker).
Result<void> checkOnePort(std::vector<std::tuple<double, double, int>> intervals, const char* what) {
  std::sort(intervals.begin(), intervals.end());
  for (size_t i = 1; i < intervals.size(); ++i) {
    const auto& [s0, e0, w0] = intervals[i - 1];
    const auto& [s1, e1, w1] = intervals[i];
    if (!atLeast(s1, e0))
      return Error{std::string("the master's ") + what + " to " + name(w0) + " " + span(s0, e0) +
              " overlaps the one to " + name(w1) + " " + span(s1, e1) + " (one port per direction)"};
  }
  return {};
}

}  // namespace

Result<WorksharingTimeline> replayAllocation(const WorksharingProblem& problem,
                                             const Allocation& allocation) {
  const int n = static_cast<int>(problem.workers.size());
  const Protocol& p = allocation.protocol;
  if (p.serveOrder.size() != p.returnOrder.size() || allocation.units.size() != problem.workers.size())
    return Result<WorksharingTimeline>::failure("the allocation does not match the workers");
  std::vector<int> position(n, -1);
  WorksharingTimeline out;
  double serveFree = 0.0;
  for (int w : p.serveOrder) {
    if (w < 0 || w >= n || position[w] >= 0)
      return Result<WorksharingTimeline>::failure("the serve order lists " + name(w) + " twice or out of range");
    const double units = allocation.units[w];
    if (units < 0)
      return Result<WorksharingTimeline>::failure(name(w) + " has a negative share");
    const Worker& spec = problem.workers[w];
    WorkerTimeline t;
    t.worker = w;
    t.units = units;
    t.servePosition = static_cast<int>(out.workers.size()) + 1;
    t.sendStart = serveFree;
    t.sendEnd = serveFree = t.sendStart + spec.linkTime * units;
    t.computeEnd = t.sendEnd + spec.computeTime * units;
    position[w] = static_cast<int>(out.workers.size());
    out.workers.push_back(t);
  }
  double returnFree = 0.0;
  int rank = 0;
  for (int w : p.returnOrder) {
    if (w < 0 || w >= n || position[w] < 0 || out.workers[position[w]].returnPosition != 0)
      return Result<WorksharingTimeline>::failure("the return order does not list the served workers once each");
    WorkerTimeline& t = out.workers[position[w]];
    t.returnPosition = ++rank;
    t.returnStart = std::max(returnFree, t.computeEnd);
    t.returnEnd = returnFree =
        t.returnStart + problem.resultRatio * problem.workers[w].linkTime * t.units;
    out.makespan = std::max(out.makespan, t.returnEnd);
  }
  return out;
}

Result<double> checkWorksharing(const WorksharingProblem& problem, const WorksharingTimeline& timeline,
                                double lifespan) {
  const int n = static_cast<int>(problem.workers.size());
  std::vector<char> seen(n, 0);
  std::vector<std::tuple<double, double, int>> serves, returns;
  double makespan = 0.0;
  for (const WorkerTimeline& t : timeline.workers) {
    if (t.worker < 0 || t.worker >= n) return Error{"worker index out of range"};
    if (seen[t.worker]) return Error{name(t.worker) + " is served twice"};
    seen[t.worker] = 1;
    const Worker& spec = problem.workers[t.worker];
    const std::string who = name(t.worker);
    if (!atLeast(t.units, 0.0)) return Error{who + " has a negative share"};
    if (!atLeast(t.sendStart, 0.0)) return Error{who + " is served before time 0"};
    if (!sameTime(t.sendEnd - t.sendStart, spec.linkTime * t.units))
      return Error{who + ": its share takes " + span(t.sendStart, t.sendEnd) +
                   " to serve but needs tau * units"};
    if (!atLeast(t.computeEnd, t.sendEnd + spec.computeTime * t.units))
      return Error{who + " finishes computing before it could have (receipt + R * units)"};
    if (!atLeast(t.returnStart, t.computeEnd)) return Error{who + " returns results before computing them"};
    if (!sameTime(t.returnEnd - t.returnStart, problem.resultRatio * spec.linkTime * t.units))
      return Error{who + ": its return " + span(t.returnStart, t.returnEnd) +
                   " does not last delta * tau * units"};
    if (!atLeast(lifespan, t.returnEnd))
      return Error{who + "'s results arrive at " + std::to_string(t.returnEnd) +
                   ", after the lifespan " + std::to_string(lifespan)};
    serves.emplace_back(t.sendStart, t.sendEnd, t.worker);
    returns.emplace_back(t.returnStart, t.returnEnd, t.worker);
    makespan = std::max(makespan, t.returnEnd);
  }
  if (auto serve = checkOnePort(serves, "serve"); !serve) return serve.error();
  if (auto back = checkOnePort(returns, "return"); !back) return back.error();
  return makespan;
}

}  // namespace hnow::planner
