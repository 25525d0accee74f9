#include "planner/reduction/reduction.h"

#include <algorithm>
#include <functional>
#include <optional>
#include <limits>
#include <numeric>
#include <queue>

#include "planner/schedule_check.h"

namespace hnow::planner {

namespace {

using MinHeap = std::priority_queue<double, std::vector<double>, std::greater<>>;

// Seed 003 counts processors only (Inequality 1: 2A + C <= n). Every node
// but the sink sends exactly once, so a node *is* its send window, and a
// valid reduction is a choice, for each window, of a receiver: the sink or a
// window that starts no earlier than this one ends, with the windows each
// receiver takes disjoint in time. Seen backwards in time, a receiver
// becomes usable at its own start and stays usable to time 0, so all idle
// usable receivers are alike for what remains: sweeping windows by
// decreasing end and giving each any idle usable receiver is exact (it
// fails only if no assignment exists, which Inequality 1 rules out).
std::optional<std::vector<int>> assignReceivers(const std::vector<double>& start,
                                                const std::vector<double>& end) {
  const size_t m = start.size();
  auto deadline = [&](size_t k) {
    return k == m ? std::numeric_limits<double>::infinity() : start[k];
  };
  auto atLeast = [](double a, double b) { return a >= b || sameTime(a, b); };
  std::vector<size_t> byEnd(m);
  std::iota(byEnd.begin(), byEnd.end(), 0);
  std::stable_sort(byEnd.begin(), byEnd.end(), [&](size_t a, size_t b) { return end[a] > end[b]; });
  // Earliest start among the windows a receiver has taken so far.
  std::vector<double> busyFrom(m + 1, std::numeric_limits<double>::infinity());
  std::vector<int> receiver(m, -1);
  for (size_t w : byEnd) {
    // Among usable idle receivers take the one usable for the shortest time
    // (the sink last), so trees stay shallow where they can.
    size_t chosen = m + 1;
    for (size_t k = 0; k <= m; ++k) {
      if (k == w || !atLeast(deadline(k), end[w]) || !atLeast(busyFrom[k], end[w])) continue;
      if (chosen == m + 1 || deadline(k) < deadline(chosen)) chosen = k;
    }
    if (chosen == m + 1) return std::nullopt;
    busyFrom[chosen] = start[w];
    receiver[w] = static_cast<int>(chosen);
  }
  return receiver;
}

}  // namespace

std::vector<double> earliestPossibleStarts(std::span<const double> sendTime,
                                           std::span<const int> senders) {
  // Figure 3: a transfer starts as soon as two processors are free; a
  // completion frees its receiver (the sender is done for good).
  int free = static_cast<int>(senders.size()) + 1;
  double now = 0.0;
  MinHeap active;
  std::vector<double> starts;
  starts.reserve(senders.size());
  for (int p : senders) {
    while (free < 2) {
      now = active.top();
      active.pop();
      ++free;
    }
    starts.push_back(now);
    active.push(now + sendTime[p]);
    free -= 2;
  }
  return starts;
}

Result<Schedule> earliestPossibleSchedule(std::span<const double> sendTime, int sink,
                                          std::span<const int> senders) {
  if (sink < 0 || sink >= static_cast<int>(sendTime.size())) return Error{"sink out of range"};
  if (senders.size() + 1 != sendTime.size())
    return Error{"the sender sequence must list every node but the sink once"};
  std::vector<char> listed(sendTime.size(), 0);
  for (int p : senders) {
    if (p < 0 || p >= static_cast<int>(sendTime.size()) || p == sink)
      return Error{"the sender sequence names the sink or an unknown node"};
    if (listed[p]++) return Error{"the sender sequence must list every node but the sink once"};
  }
  std::vector<double> starts = earliestPossibleStarts(sendTime, senders);
  std::vector<double> ends;
  for (size_t i = 0; i < senders.size(); ++i) ends.push_back(starts[i] + sendTime[senders[i]]);
  auto receivers = assignReceivers(starts, ends);
  if (!receivers) return Error{"no receiver assignment exists for the EP schedule"};
  Schedule out;
  for (size_t i = 0; i < senders.size(); ++i) {
    size_t r = static_cast<size_t>((*receivers)[i]);
    out.push_back({senders[i], r == senders.size() ? sink : senders[r], starts[i], ends[i]});
  }
  return out;
}

Result<Schedule> slowestNodeFirst(std::span<const double> sendTime, int sink) {
  std::vector<int> order;
  for (int v = 0; v < static_cast<int>(sendTime.size()); ++v)
    if (v != sink) order.push_back(v);
  std::stable_sort(order.begin(), order.end(),
                   [&](int a, int b) { return sendTime[a] > sendTime[b]; });
  return earliestPossibleSchedule(sendTime, sink, order);
}

Schedule binomialReduction(std::span<const double> sendTime, int sink) {
  const int n = static_cast<int>(sendTime.size());
  auto node = [&](int rank) { return (rank + sink) % n; };
  Schedule out;
  // Returns when `rank` has received from all its children, recording the transfers.
  std::function<double(int)> gather = [&](int rank) {
    const int lowBit = rank == 0 ? n : (rank & -rank);
    double clock = 0.0;
    for (int mask = 1; mask < lowBit && rank + mask < n; mask <<= 1) {
      int child = rank + mask;
      double start = std::max(clock, gather(child));
      double end = start + sendTime[node(child)];
      out.push_back({node(child), node(rank), start, end});
      clock = end;
    }
    return clock;
  };
  if (n > 1) gather(0);
  std::stable_sort(out.begin(), out.end(),
                   [](const Transfer& a, const Transfer& b) { return a.start < b.start; });
  return out;
}

double reductionLowerBound(std::span<const double> sendTime, int sink) {
  const int n = static_cast<int>(sendTime.size());
  if (n <= 1) return 0.0;
  double fastest = std::numeric_limits<double>::infinity(), slowest = 0.0;
  for (int v = 0; v < n; ++v) {
    if (v == sink) continue;
    fastest = std::min(fastest, sendTime[v]);
    slowest = std::max(slowest, sendTime[v]);
  }
  // Every sender's window fits in the schedule; and shortening windows keeps
  // Inequality 1, so the all-fastest cluster (where every order is the same)
  // is never slower.
  std::vector<double> relaxed(n, fastest);
  std::vector<int> senders;
  for (int v = 0; v < n; ++v)
    if (v != sink) senders.push_back(v);
  std::vector<double> starts = earliestPossibleStarts(relaxed, senders);
  return std::max(slowest, starts.back() + fastest);
}

}  // namespace hnow::planner
