// Exact optimal reduction (seed 003 §5–6).
#include <algorithm>
#include <limits>
#include <vector>

#include "planner/node_classes.h"
#include "planner/reduction/reduction.h"
#include "planner/schedule_check.h"

namespace hnow::planner {

namespace {

struct Active {
  double completion;
  double sendTime;
  bool operator>(const Active& o) const { return completion > o.completion; }
};

// Counting state of an EP schedule prefix (seed 003 Figure 3).
struct EpState {
  int free = 0;
  double now = 0.0;
  double makespan = 0.0;
  std::vector<Active> active;  // min-heap on completion
  std::vector<Active> doneNow; // senders that completed exactly at `now`

  // Advances to the earliest time two processors are free; returns the start.
  double nextStart() {
    while (free < 2) {
      std::pop_heap(active.begin(), active.end(), std::greater<>{});
      Active a = active.back();
      active.pop_back();
      if (a.completion != now) doneNow.clear();
      now = a.completion;
      doneNow.push_back(a);
      ++free;
    }
    return now;
  }

  void begin(double start, double t) {
    active.push_back({start + t, t});
    std::push_heap(active.begin(), active.end(), std::greater<>{});
    free -= 2;
    makespan = std::max(makespan, start + t);
  }

  // Lemma 1: a sender that starts exactly when a faster one completes can
  // swap with it without delaying anything.
  bool waitsForFaster(double start, double t) const {
    if (start <= 0.0) return false;
    for (const Active& a : doneNow)
      if (sameTime(a.completion, start) && a.sendTime < t) return true;
    for (const Active& a : active)
      if (sameTime(a.completion, start) && a.sendTime < t) return true;
    return false;
  }
};

class Search {
 public:
  Search(std::span<const double> sendTime, int sink, const SearchLimits& limits)
      : classes_(classesOf(sendTime, sink)), limits_(limits) {
    for (const auto& m : classes_.members) remaining_.push_back(static_cast<int>(m.size()));
    total_ = static_cast<int>(sendTime.size()) - 1;
    state_.free = total_ + 1;
  }

  void run() { descend(0); }

  std::vector<int> bestSenders() const {
    std::vector<size_t> next(classes_.members.size(), 0);
    std::vector<int> out;
    for (int c : bestOrder_) out.push_back(classes_.members[c][next[c]++]);
    return out;
  }
  long long nodes() const { return nodes_; }
  bool exhausted() const { return !stopped_; }

 private:
  // Shortening every remaining window to the fastest remaining one only adds
  // slack to Inequality 1, so the relaxed EP continuation's sorted start
  // times are lower bounds on the real ones; the real senders fill those
  // starts at best slowest-first, which bounds the makespan from below.
  double lowerBound(const EpState& s) const {
    double fastest = 0.0;
    int left = 0;
    for (size_t c = 0; c < remaining_.size(); ++c) {
      if (remaining_[c] == 0) continue;
      if (left == 0) fastest = classes_.sendTime[c];
      left += remaining_[c];
    }
    if (left == 0) return s.makespan;
    EpState relaxed = s;
    double bound = s.makespan;
    int c = static_cast<int>(remaining_.size()) - 1;
    int usedOfClass = 0;
    for (int i = 0; i < left; ++i) {
      double start = relaxed.nextStart();
      relaxed.begin(start, fastest);
      while (usedOfClass == remaining_[c]) {
        --c;
        usedOfClass = 0;
      }
      ++usedOfClass;
      bound = std::max(bound, start + classes_.sendTime[c]);
    }
    return bound;
  }

  void descend(int placed) {
    if (placed == total_) {
      if (state_.makespan < best_) {
        best_ = state_.makespan;
        bestOrder_ = prefix_;
      }
      return;
    }
    // The next start does not depend on who sends: compute it once.
    EpState atStart = state_;
    const double start = atStart.nextStart();
    // Slowest class first, so the first leaf is SNF (seed 003 §6).
    for (int c = static_cast<int>(remaining_.size()) - 1; c >= 0; --c) {
      if (remaining_[c] == 0 || stopped_) continue;
      // §6: the last sender is a fastest one.
      if (c == 0 && remaining_[0] == 1 && placed < total_ - 1) continue;
      // Senders starting at one instant form a set: take them slowest first.
      if (start == lastStart_ && c > lastClass_) continue;
      const double t = classes_.sendTime[c];
      if (atStart.waitsForFaster(start, t)) continue;  // Lemma 1
      if (++nodes_ > limits_.maxSearchNodes) {
        stopped_ = true;
        return;
      }
      EpState saved = std::move(state_);
      state_ = atStart;
      state_.begin(start, t);
      --remaining_[c];
      prefix_.push_back(c);
      const double savedStart = lastStart_;
      const int savedClass = lastClass_;
      lastStart_ = start;
      lastClass_ = c;
      if (lowerBound(state_) < best_) descend(placed + 1);
      lastStart_ = savedStart;
      lastClass_ = savedClass;
      prefix_.pop_back();
      ++remaining_[c];
      state_ = std::move(saved);
    }
  }

  NodeClasses classes_;
  SearchLimits limits_;
  std::vector<int> remaining_;
  int total_ = 0;
  EpState state_;
  std::vector<int> prefix_;
  std::vector<int> bestOrder_;
  double best_ = std::numeric_limits<double>::infinity();
  long long nodes_ = 0;
  bool stopped_ = false;
  double lastStart_ = -1.0;  // start time and class of the previous sender
  int lastClass_ = -1;
};

}  // namespace

Result<OptimalReduction> optimalReduction(std::span<const double> sendTime, int sink,
                                          const SearchLimits& limits) {
  if (sink < 0 || sink >= static_cast<int>(sendTime.size())) return Error{"sink out of range"};
  OptimalReduction out;
  Search search(sendTime, sink, limits);
  search.run();
  out.stats.searchNodes = search.nodes();
  std::vector<int> senders = search.bestSenders();
  Result<Schedule> schedule = senders.size() + 1 == sendTime.size()
                                   ? earliestPossibleSchedule(sendTime, sink, senders)
                                   : slowestNodeFirst(sendTime, sink);  // limit hit before a leaf
  if (!schedule) return schedule.error();
  out.schedule = std::move(schedule).value();
  for (const Transfer& x : out.schedule) out.makespan = std::max(out.makespan, x.end);
  out.provenOptimal = search.exhausted();
  return out;
}

}  // namespace hnow::planner
