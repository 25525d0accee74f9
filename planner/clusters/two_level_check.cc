#include "planner/clusters/two_level_check.h"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <string>

namespace hnow::planner {

namespace {

// One thing that starts or ends at an instant. Ends sort before starts at
// the same instant, so back-to-back activities are fine.
struct Event {
  enum Kind { kTransfer, kBusy };
  double time;
  bool isEnd;
  Kind kind;
  int transfer;
  int node;  // kBusy: whose busy interval
};

std::string describe(const Transfer& x) {
  std::ostringstream out;
  out << "transfer " << x.from << "->" << x.to << " [" << x.start << ", " << x.end << "]";
  return out.str();
}

void sortEvents(std::vector<Event>& events) {
  std::sort(events.begin(), events.end(),
            [](const Event& a, const Event& b) { return a.time < b.time; });
  // Times that differ only by rounding count as one instant.
  for (size_t i = 1; i < events.size(); ++i)
    if (sameTime(events[i - 1].time, events[i].time)) events[i].time = events[i - 1].time;
  std::stable_sort(events.begin(), events.end(), [](const Event& a, const Event& b) {
    if (a.time != b.time) return a.time < b.time;
    return a.isEnd && !b.isEnd;
  });
}

// Each transfer's events, in the schedule's order, once every transfer is
// between valid nodes and lasts what the model says; the makespan.
Result<double> eventsOf(const TwoLevelInstance& instance, const ClusterLayout& layout,
                        std::span<const Transfer> schedule, std::vector<Event>& events) {
  const int n = layout.nodes();
  const double local = instance.localTime, global = instance.globalTime;
  const bool postal = instance.model == TwoLevelModel::kPostal;
  double makespan = 0.0;
  for (int i = 0; i < static_cast<int>(schedule.size()); ++i) {
    const Transfer& x = schedule[i];
    if (x.from < 0 || x.from >= n || x.to < 0 || x.to >= n)
      return Error{describe(x) + ": node index out of range"};
    if (x.from == x.to) return Error{describe(x) + ": a node cannot send to itself"};
    if (!std::isfinite(x.start) || (x.start < 0 && !sameTime(x.start, 0.0)))
      return Error{describe(x) + ": starts before time 0"};
    const bool isGlobal = layout.clusterOf(x.from) != layout.clusterOf(x.to);
    const double length = isGlobal ? global : local;
    if (!sameTime(x.end - x.start, length))
      return Error{describe(x) + ": lasts " + std::to_string(x.end - x.start) + " but a " +
                   (isGlobal ? "global" : "local") + " transfer takes " + std::to_string(length)};
    makespan = std::max(makespan, x.end);
    events.push_back({x.start, false, Event::kTransfer, i, -1});
    events.push_back({x.end, true, Event::kTransfer, i, -1});
    // Postal: the sender is free after injecting, the receiver busy on arrival.
    const double senderEnd = postal ? x.start + local : x.end;
    const double receiverStart = postal ? x.end - local : x.start;
    events.push_back({x.start, false, Event::kBusy, i, x.from});
    events.push_back({senderEnd, true, Event::kBusy, i, x.from});
    events.push_back({receiverStart, false, Event::kBusy, i, x.to});
    events.push_back({x.end, true, Event::kBusy, i, x.to});
  }
  return makespan;
}

}  // namespace

Result<double> checkTwoLevel(const TwoLevelInstance& instance, const GlobalLimits& limits,
                             std::span<const Transfer> schedule) {
  const ClusterLayout layout(instance.sizes);
  const int n = layout.nodes();
  if (n == 0) return Error{"the instance has no nodes"};

  std::vector<Event> events;
  const Result<double> timed = eventsOf(instance, layout, schedule, events);
  if (!timed) return timed;
  const double makespan = *timed;
  sortEvents(events);

  std::vector<int> busyWith(n, -1);
  std::vector<char> holds(n, 0), received(n, 0);
  std::vector<int> globalBusy(layout.clusters(), 0);
  int globalsInProgress = 0;
  holds[0] = 1;
  auto degreeOf = [&](int cluster) {
    return cluster < static_cast<int>(limits.degree.size()) ? limits.degree[cluster] : 0;
  };
  for (const Event& e : events) {
    const Transfer& x = schedule[e.transfer];
    const bool isGlobal = layout.clusterOf(x.from) != layout.clusterOf(x.to);
    if (e.kind == Event::kBusy) {
      const int cluster = layout.clusterOf(e.node);
      if (e.isEnd) {
        busyWith[e.node] = -1;
        if (isGlobal) --globalBusy[cluster];
        continue;
      }
      if (busyWith[e.node] >= 0)
        return Error{describe(x) + ": node " + std::to_string(e.node) + " is still busy with " +
                     describe(schedule[busyWith[e.node]])};
      busyWith[e.node] = e.transfer;
      if (isGlobal) ++globalBusy[cluster];
      if (isGlobal && degreeOf(cluster) > 0 && globalBusy[cluster] > degreeOf(cluster))
        return Error{describe(x) + ": more than " + std::to_string(degreeOf(cluster)) +
                     " nodes of cluster " + std::to_string(cluster) +
                     " in global transfers at once (its degree)"};
      continue;
    }
    if (e.isEnd) {
      holds[x.to] = 1;
      if (isGlobal) --globalsInProgress;
      continue;
    }
    if (!holds[x.from]) return Error{describe(x) + ": the sender has not received the message yet"};
    if (x.to == 0) return Error{describe(x) + ": the source never receives"};
    if (received[x.to]) return Error{describe(x) + ": the receiver already got the message"};
    received[x.to] = 1;
    if (isGlobal) ++globalsInProgress;
    if (isGlobal && limits.maxGlobal > 0 && globalsInProgress > limits.maxGlobal)
      return Error{describe(x) + ": more than " + std::to_string(limits.maxGlobal) +
                   " global transfers in progress at once (max_global)"};
  }
  for (int v : targetNodes(instance))
    if (!holds[v]) return Error{"node " + std::to_string(v) + " never receives the message"};
  return makespan;
}

}  // namespace hnow::planner
