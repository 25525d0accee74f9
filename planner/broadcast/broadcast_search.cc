#include "planner/broadcast/broadcast_search.h"

#include <algorithm>
#include <limits>
#include <vector>

#include "planner/broadcast/broadcast.h"
#include "planner/node_classes.h"

namespace hnow::planner {

namespace {

// A ready node's stream of send completions (seed 000 eq. (1)): it sends
// back to back from its ready time on (Theorem 4.1).
struct Slot {
  double completion;
  double sendTime;
  bool source;
};

// Heap order: earliest completion; at a tie the source, then the faster
// sender (so a tie group's senders meet its receivers fastest-to-fastest).
bool later(const Slot& a, const Slot& b) {
  if (a.completion != b.completion) return a.completion > b.completion;
  if (a.source != b.source) return b.source;
  return a.sendTime > b.sendTime;
}

struct Options {
  bool pruneByTheorems;   // Theorems 4.2 and 4.3, symmetry inside tie groups, the bound
  bool fastestFirstOrder; // explore classes fastest first (FNF first)
};

class Search {
 public:
  Search(std::span<const double> sendTime, int source, const SearchLimits& limits, Options options)
      : classes_(classesOf(sendTime, source)), limits_(limits), options_(options) {
    remaining_.resize(classes_.members.size());
    for (size_t c = 0; c < remaining_.size(); ++c)
      remaining_[c] = static_cast<int>(classes_.members[c].size());
    total_ = static_cast<int>(sendTime.size()) - 1;
    // Theorem 4.3 is proven when the source is one of the fastest nodes (the
    // seed's setting, §4.1); with a slower or a strictly faster source it
    // does not hold, so it is applied only then.
    fastestFirst_ = options.pruneByTheorems && !classes_.sendTime.empty() &&
                    sendTime[source] == classes_.sendTime[0];
    order_.resize(classes_.members.size());
    for (size_t c = 0; c < order_.size(); ++c) order_[c] = static_cast<int>(c);
    if (!options.fastestFirstOrder) {
      // Plain search: classes in the order nodes are listed.
      std::sort(order_.begin(), order_.end(), [&](int a, int b) {
        return classes_.members[a].front() < classes_.members[b].front();
      });
    }
    slots_.push_back({sendTime[source], sendTime[source], true});
  }

  void run() {
    prefix_.clear();
    descend(0, -1.0, -1);
  }

  bool found() const { return best_ < std::numeric_limits<double>::infinity(); }
  double best() const { return best_; }
  const std::vector<int>& bestOrder() const { return bestOrder_; }
  long long nodes() const { return nodes_; }
  bool exhausted() const { return !stopped_; }

 private:
  // Ready time of the last node if every remaining receiver had the
  // smallest remaining send time: never later than any completion of this
  // prefix (monotonic cost property, seed 000 §5).
  double lowerBound(const std::vector<Slot>& slots, int left) const {
    if (left == 0) return 0.0;
    double fastest = 0.0;
    for (size_t c = 0; c < remaining_.size(); ++c)
      if (remaining_[c] > 0) { fastest = classes_.sendTime[c]; break; }
    std::vector<Slot> heap = slots;
    double ready = 0.0;
    for (int i = 0; i < left; ++i) {
      std::pop_heap(heap.begin(), heap.end(), later);
      Slot s = heap.back();
      ready = s.completion;
      heap.back().completion += s.sendTime;
      std::push_heap(heap.begin(), heap.end(), later);
      heap.push_back({ready + fastest, fastest, false});
      std::push_heap(heap.begin(), heap.end(), later);
    }
    return ready;
  }

  // placed: receivers placed so far; groupTime/groupClass: ready time and class
  // of the previous receiver, for symmetry inside a tie group.
  void descend(int placed, double groupTime, int groupClass) {
    if (placed == total_) {
      double makespan = groupTime < 0 ? 0.0 : groupTime;
      if (makespan < best_) {
        best_ = makespan;
        bestOrder_ = prefix_;
      }
      return;
    }
    const Slot next = slots_.front();
    for (int c : order_) {
      if (remaining_[c] == 0) continue;
      if (stopped_) return;
      const double t = classes_.sendTime[c];
      if (options_.pruneByTheorems) {
        if (fastestFirst_ && c != 0 && remaining_[0] > 0) continue;  // Theorem 4.3
        // Receivers sharing one ready time are interchangeable: take them in
        // class order only.
        if (next.completion == groupTime && c < groupClass) continue;
        // Theorem 4.2, tie-aware: with a group's senders and receivers both
        // taken fastest first, no slower non-source sender serves a faster
        // receiver (the source is exempt: its place is given).
        if (!next.source && next.sendTime > t) continue;
      }
      if (++nodes_ > limits_.maxSearchNodes) {
        stopped_ = true;
        return;
      }
      if (next.completion >= best_) continue;  // bound: ready times only grow

      std::vector<Slot> saved = slots_;
      std::pop_heap(slots_.begin(), slots_.end(), later);
      slots_.back().completion += next.sendTime;
      std::push_heap(slots_.begin(), slots_.end(), later);
      slots_.push_back({next.completion + t, t, false});
      std::push_heap(slots_.begin(), slots_.end(), later);
      --remaining_[c];
      prefix_.push_back(c);
      const bool prune = options_.pruneByTheorems &&
                         lowerBound(slots_, total_ - placed - 1) >= best_;
      if (!prune) descend(placed + 1, next.completion, c);
      prefix_.pop_back();
      ++remaining_[c];
      slots_ = std::move(saved);
    }
  }

  NodeClasses classes_;
  SearchLimits limits_;
  Options options_;
  bool fastestFirst_ = false;
  std::vector<int> order_;
  std::vector<int> remaining_;
  int total_ = 0;
  std::vector<Slot> slots_;  // a heap under `later`
  std::vector<int> prefix_;
  std::vector<int> bestOrder_;
  double best_ = std::numeric_limits<double>::infinity();
  long long nodes_ = 0;
  bool stopped_ = false;

 public:
  // Node indices in ready order: members of each class in index order.
  std::vector<int> nodesInOrder(const std::vector<int>& classOrder) const {
    std::vector<size_t> next(classes_.members.size(), 0);
    std::vector<int> out;
    for (int c : classOrder) out.push_back(classes_.members[c][next[c]++]);
    return out;
  }
};

OptimalBroadcast solve(std::span<const double> sendTime, int source, const SearchLimits& limits,
                       Options options) {
  OptimalBroadcast out;
  if (sendTime.size() <= 1) {
    out.provenOptimal = true;
    return out;
  }
  Search search(sendTime, source, limits, options);
  search.run();
  out.stats.searchNodes = search.nodes();
  if (search.found()) {
    out.schedule = scheduleFromReadyOrder(sendTime, source, search.nodesInOrder(search.bestOrder()));
  } else {
    out.schedule = fastestNodeFirst(sendTime, source);  // limit hit before any leaf
  }
  out.makespan = out.schedule.empty() ? 0.0 : out.schedule.back().end;
  out.provenOptimal = search.exhausted();
  return out;
}

}  // namespace

OptimalBroadcast optimalBroadcast(std::span<const double> sendTime, int source,
                                  const SearchLimits& limits) {
  return solve(sendTime, source, limits, Options{true, true});
}

OptimalBroadcast plainBranchAndBoundBroadcast(std::span<const double> sendTime, int source,
                                              const SearchLimits& limits) {
  return solve(sendTime, source, limits, Options{false, false});
}

}  // namespace hnow::planner
