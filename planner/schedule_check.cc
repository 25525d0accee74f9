#include "planner/schedule_check.h"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <string>

namespace hnow::planner {

bool sameTime(double a, double b) {
  return std::fabs(a - b) <= 1e-9 * std::max({1.0, std::fabs(a), std::fabs(b)});
}

namespace {

enum class Model { kBroadcast, kReduction };

struct Event {
  double time;
  bool isEnd;  // ends sort before starts at the same instant: back-to-back is fine
  int transfer;
};

std::string describe(const Transfer& x) {
  std::ostringstream out;
  out << "transfer " << x.from << "->" << x.to << " [" << x.start << ", " << x.end << "]";
  return out.str();
}

// Builds the event list with times that differ only by rounding snapped
// together, so that an end at 2.0 and a start at 1.9999999999 count as one instant.
std::vector<Event> eventsOf(std::span<const Transfer> schedule) {
  std::vector<Event> events;
  events.reserve(schedule.size() * 2);
  for (int i = 0; i < static_cast<int>(schedule.size()); ++i) {
    events.push_back({schedule[i].start, false, i});
    events.push_back({schedule[i].end, true, i});
  }
  std::sort(events.begin(), events.end(),
            [](const Event& a, const Event& b) { return a.time < b.time; });
  for (size_t i = 1; i < events.size(); ++i) {
    if (sameTime(events[i - 1].time, events[i].time)) events[i].time = events[i - 1].time;
  }
  std::stable_sort(events.begin(), events.end(), [](const Event& a, const Event& b) {
    if (a.time != b.time) return a.time < b.time;
    return a.isEnd && !b.isEnd;
  });
  return events;
}

Result<double> replay(Model model, std::span<const double> sendTime, int root,
                      std::span<const Transfer> schedule, std::span<const int> targets) {
  const int n = static_cast<int>(sendTime.size());
  if (root < 0 || root >= n) return Error{"root index out of range"};
  double makespan = 0.0;
  for (const Transfer& x : schedule) {
    if (x.from < 0 || x.from >= n || x.to < 0 || x.to >= n)
      return Error{describe(x) + ": node index out of range"};
    if (x.from == x.to) return Error{describe(x) + ": a node cannot send to itself"};
    if (!std::isfinite(x.start) || (x.start < 0 && !sameTime(x.start, 0.0)))
      return Error{describe(x) + ": starts before time 0"};
    if (!sameTime(x.end - x.start, sendTime[x.from]))
      return Error{describe(x) + ": lasts " + std::to_string(x.end - x.start) +
                   " but the sender needs " + std::to_string(sendTime[x.from])};
    makespan = std::max(makespan, x.end);
  }

  std::vector<int> busyWith(n, -1);
  std::vector<char> holds(n, 0), received(n, 0), sent(n, 0);
  holds[root] = 1;
  for (const Event& e : eventsOf(schedule)) {
    const Transfer& x = schedule[e.transfer];
    if (e.isEnd) {
      busyWith[x.from] = busyWith[x.to] = -1;
      if (model == Model::kBroadcast) holds[x.to] = 1;
      continue;
    }
    for (int node : {x.from, x.to}) {
      if (busyWith[node] >= 0)
        return Error{describe(x) + ": node " + std::to_string(node) + " is still busy with " +
                     describe(schedule[busyWith[node]])};
    }
    if (model == Model::kBroadcast) {
      if (!holds[x.from]) return Error{describe(x) + ": the sender has not received the message yet"};
      if (x.to == root) return Error{describe(x) + ": the source never receives"};
      if (received[x.to]) return Error{describe(x) + ": the receiver already got the message"};
      received[x.to] = 1;
    } else {
      if (x.from == root) return Error{describe(x) + ": the sink never sends"};
      if (sent[x.from]) return Error{describe(x) + ": the sender already sent its value"};
      if (sent[x.to]) return Error{describe(x) + ": the receiver has already sent its value"};
      sent[x.from] = 1;
    }
    busyWith[x.from] = busyWith[x.to] = e.transfer;
  }

  if (model == Model::kBroadcast) {
    auto unreached = [&](int node) { return node != root && !received[node]; };
    if (targets.empty()) {
      for (int v = 0; v < n; ++v)
        if (unreached(v)) return Error{"node " + std::to_string(v) + " never receives the message"};
    } else {
      for (int v : targets) {
        if (v < 0 || v >= n) return Error{"target index out of range"};
        if (unreached(v)) return Error{"node " + std::to_string(v) + " never receives the message"};
      }
    }
  } else {
    for (int v = 0; v < n; ++v)
      if (v != root && !sent[v]) return Error{"node " + std::to_string(v) + " never sends its value"};
  }
  return makespan;
}

}  // namespace

Result<double> checkBroadcast(std::span<const double> sendTime, int source,
                              std::span<const Transfer> schedule, std::span<const int> targets) {
  return replay(Model::kBroadcast, sendTime, source, schedule, targets);
}

Result<double> checkReduction(std::span<const double> sendTime, int sink,
                              std::span<const Transfer> schedule) {
  return replay(Model::kReduction, sendTime, sink, schedule, {});
}

}  // namespace hnow::planner
