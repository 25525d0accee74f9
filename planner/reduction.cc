#include "planner/reduction.h"

#include <algorithm>
#include <functional>
#include <limits>
#include <queue>

#include "planner/node_classes.h"

namespace hnow::planner {

namespace {

using MinHeap = std::priority_queue<double, std::vector<double>, std::greater<>>;

// One EP transfer before identities are fixed: which class sends, and when.
struct Window {
  int cls;
  double start;
  double end;
};

// Seed 003 counts processors only (Inequality 1: 2A + C <= n). To turn an EP
// schedule into named transfers we pick, for each window, an idle unsent
// node of the window's class as sender and an idle unsent node as receiver.
// Idle unsent nodes of one class are interchangeable for the future, so the
// search branches over receiver classes only (the sink first, then the class
// that runs short latest) and backtracks if a later window finds no sender.
class Realizer {
 public:
  Realizer(std::span<const double> sendTime, int sink, const NodeClasses& classes,
           std::vector<Window> windows)
      : t_(sendTime), sink_(sink), classes_(classes), windows_(std::move(windows)),
        busyUntil_(sendTime.size(), 0.0), sent_(sendTime.size(), 0) {}

  Outcome<Schedule> run() {
    if (!assign(0)) return PlanError{"no receiver assignment found for the EP schedule"};
    return out_;
  }

 private:
  bool idle(int v, double at) const { return busyUntil_[v] <= at + 1e-12 * std::max(1.0, at); }

  int idleUnsent(int cls, double at, int except) const {
    for (int v : classes_.members[cls])
      if (v != except && !sent_[v] && idle(v, at)) return v;
    return -1;
  }

  // Start of the first later window of `cls` that could not find a sender if
  // one more member of the class were busy until `until`.
  double shortfallTime(int cls, size_t from, double until, int sender) const {
    int spare = 0;
    for (int v : classes_.members[cls])
      if (v != sender && !sent_[v]) ++spare;
    for (size_t j = from; j < windows_.size(); ++j) {
      if (windows_[j].cls != cls) continue;
      if (windows_[j].start >= until) return std::numeric_limits<double>::infinity();
      if (--spare < 1) return windows_[j].start;
    }
    return std::numeric_limits<double>::infinity();
  }

  bool assign(size_t j) {
    if (j == windows_.size()) return true;
    if (++steps_ > kMaxSteps) return false;
    const Window& w = windows_[j];
    int sender = idleUnsent(w.cls, w.start, -1);
    if (sender < 0) return false;
    std::vector<int> receivers;
    if (idle(sink_, w.start)) receivers.push_back(sink_);
    std::vector<std::pair<double, int>> byClass;
    for (int c = 0; c < static_cast<int>(classes_.members.size()); ++c) {
      int r = idleUnsent(c, w.start, sender);
      if (r >= 0) byClass.push_back({-shortfallTime(c, j + 1, w.end, sender), r});
    }
    std::sort(byClass.begin(), byClass.end());
    for (auto& [_, r] : byClass) receivers.push_back(r);

    const double senderBusy = busyUntil_[sender];
    for (int r : receivers) {
      const double receiverBusy = busyUntil_[r];
      busyUntil_[sender] = busyUntil_[r] = w.end;
      sent_[sender] = 1;
      out_.push_back({sender, r, w.start, w.end});
      if (assign(j + 1)) return true;
      out_.pop_back();
      sent_[sender] = 0;
      busyUntil_[sender] = senderBusy;
      busyUntil_[r] = receiverBusy;
    }
    return false;
  }

  static constexpr long long kMaxSteps = 5'000'000;
  std::span<const double> t_;
  int sink_;
  const NodeClasses& classes_;
  std::vector<Window> windows_;
  std::vector<double> busyUntil_;
  std::vector<char> sent_;
  Schedule out_;
  long long steps_ = 0;
};

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

Outcome<Schedule> earliestPossibleSchedule(std::span<const double> sendTime, int sink,
                                           std::span<const int> senders) {
  if (sink < 0 || sink >= static_cast<int>(sendTime.size())) return PlanError{"sink out of range"};
  if (senders.size() + 1 != sendTime.size())
    return PlanError{"the sender sequence must list every node but the sink once"};
  NodeClasses classes = classesOf(sendTime, sink);
  std::vector<char> listed(sendTime.size(), 0);
  for (int p : senders) {
    if (p < 0 || p >= static_cast<int>(sendTime.size()) || p == sink)
      return PlanError{"the sender sequence names the sink or an unknown node"};
    if (listed[p]++) return PlanError{"the sender sequence must list every node but the sink once"};
  }
  std::vector<double> starts = earliestPossibleStarts(sendTime, senders);
  std::vector<Window> windows;
  for (size_t i = 0; i < senders.size(); ++i)
    windows.push_back({classes.classOf[senders[i]], starts[i], starts[i] + sendTime[senders[i]]});
  return Realizer(sendTime, sink, classes, std::move(windows)).run();
}

Outcome<Schedule> slowestNodeFirst(std::span<const double> sendTime, int sink) {
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
