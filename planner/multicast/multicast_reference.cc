// The straightforward heuristics of seed 004 §4–§5 as first written: a lazy
// heap of (sender, receiver, message) triples for ECF and FEF, a scan of
// every (message, holder) pair per step for the receiver-first rules. Kept
// as the executable specification the fast planMulticast is tested against
// (tests/planner/multicast_fast_test.cc) and as the bench's baseline.
#include "planner/multicast/multicast_reference.h"

#include <algorithm>
#include <functional>
#include <optional>
#include <tuple>

#include "planner/multicast/multicast_timeline.h"

namespace hnow::planner {

namespace {

// A possible task (send, i, j, k) keyed by its completion time (or FEF's
// weight) and the tie rules of the header.
struct Candidate {
  double time;
  int notOwnSource;
  int k;
  int i;
  int j;
};

bool laterByCompletion(const Candidate& a, const Candidate& b) {
  return std::tie(a.time, a.notOwnSource, a.k, a.i, a.j) > std::tie(b.time, b.notOwnSource, b.k, b.i, b.j);
}

// FEF's sorted edge list: weight, then receiver, sender, message.
bool laterByWeight(const Candidate& a, const Candidate& b) {
  return std::tie(a.time, a.j, a.i, a.k) > std::tie(b.time, b.j, b.i, b.k);
}

class CandidateHeap {
 public:
  using Later = bool (*)(const Candidate&, const Candidate&);
  explicit CandidateHeap(Later later = laterByCompletion) : later_(later) {}
  bool empty() const { return items_.empty(); }
  void push(const Candidate& c) {
    items_.push_back(c);
    std::push_heap(items_.begin(), items_.end(), later_);
  }
  Candidate pop() {
    std::pop_heap(items_.begin(), items_.end(), later_);
    Candidate c = items_.back();
    items_.pop_back();
    return c;
  }

 private:
  Later later_;
  std::vector<Candidate> items_;
};

Candidate candidate(const MulticastInstance& instance, const MulticastTimeline& timeline, int i, int j, int k) {
  return {timeline.completeTime(i, j, k), i != instance.messages[k].source ? 1 : 0, k, i, j};
}

// The candidate with the least key, evaluated lazily: completion times only
// grow as tasks are added (Avail_i never decreases, nor does Figure 16's
// SendAvailable: later tasks only use up waits), so a popped entry whose
// recomputed time is unchanged is the true minimum. Stale entries (receiver
// already served) are dropped.
std::optional<Candidate> popEarliest(CandidateHeap& heap, const MulticastTimeline& timeline) {
  while (!heap.empty()) {
    Candidate c = heap.pop();
    if (!timeline.pending(c.k, c.j)) continue;
    const double now = timeline.completeTime(c.i, c.j, c.k);
    if (now > c.time) {
      c.time = now;
      heap.push(c);
      continue;
    }
    return c;
  }
  return std::nullopt;
}

int totalDeliveries(const MulticastInstance& instance) {
  int total = 0;
  for (const MulticastMessage& m : instance.messages) total += static_cast<int>(m.destinations.size());
  return total;
}

// §4.1: the edge of least latency S + X·l + R among holders and waiting
// destinations; the schedule is then laid out with §4's appends.
MulticastPlan fastestEdgeFirst(const MulticastInstance& instance) {
  MulticastTimeline timeline(instance, false);
  CandidateHeap heap(laterByWeight);
  auto weight = [&](int i, int j, int k) {
    return instance.sendTime(i, k) + instance.wireTime(i, j, k) + instance.recvTime(j, k);
  };
  for (int k = 0; k < instance.messageCount(); ++k) {
    const int source = instance.messages[k].source;
    for (int d : instance.messages[k].destinations) heap.push({weight(source, d, k), 0, k, source, d});
  }
  while (!heap.empty()) {
    Candidate c = heap.pop();
    if (!timeline.pending(c.k, c.j)) continue;
    timeline.commit(c.i, c.j, c.k);
    for (int d : instance.messages[c.k].destinations)
      if (timeline.pending(c.k, d)) heap.push({weight(c.j, d, c.k), 0, c.k, c.j, d});
  }
  return timeline.plan();
}

// §4.2 (and ECFP, §5): the task of earliest completion over all messages.
MulticastPlan earliestCompletionFirst(const MulticastInstance& instance, bool preemptive) {
  MulticastTimeline timeline(instance, preemptive);
  CandidateHeap heap;
  for (int k = 0; k < instance.messageCount(); ++k)
    for (int d : instance.messages[k].destinations)
      heap.push(candidate(instance, timeline, instance.messages[k].source, d, k));
  while (auto c = popEarliest(heap, timeline)) {
    timeline.commit(c->i, c->j, c->k);
    for (int d : instance.messages[c->k].destinations)
      if (timeline.pending(c->k, d)) heap.push(candidate(instance, timeline, c->j, d, c->k));
  }
  return timeline.plan();
}

// §4.3's scheme shared by WR, EAF, RR and RRS: a rule picks the receiver;
// message and sender are then chosen by earliest completion among the
// messages the receiver still needs and their current holders. A direct
// scan, O(N·M) per step as in the seed: cheaper here than a lazy heap per
// receiver, whose entries all go stale as the holders' Avail grows.
class ReceiverFirst {
 public:
  ReceiverFirst(const MulticastInstance& instance, bool preemptive)
      : instance_(instance), timeline_(instance, preemptive), holders_(instance.messageCount()),
        needed_(instance.nodeCount()), virtualTime_(instance.nodeCount(), 0.0),
        virtualAfter_(static_cast<size_t>(instance.messageCount()) * instance.nodeCount(), 0.0),
        remaining_(totalDeliveries(instance)) {
    for (int k = 0; k < instance.messageCount(); ++k) {
      holders_[k].push_back(instance.messages[k].source);
      for (int d : instance.messages[k].destinations) needed_[d].push_back(k);
    }
  }

  bool done() const { return remaining_ == 0; }
  int nodeCount() const { return instance_.nodeCount(); }
  bool needs(int j) const { return !needed_[j].empty(); }
  double virtualTime(int j) const { return virtualTime_[j]; }
  const MulticastTimeline& timeline() const { return timeline_; }

  // WR and EAF's tie rule: the smaller receive overhead, then the lower index.
  bool fasterReceiver(int a, int b) const {
    const MulticastNode& x = instance_.nodes[a];
    const MulticastNode& y = instance_.nodes[b];
    return std::tie(x.recvOverhead, x.recvPerByte, a) < std::tie(y.recvOverhead, y.recvPerByte, b);
  }

  void serve(int j) {
    Candidate best{0, 0, 0, 0, 0};
    size_t chosen = needed_[j].size();
    for (size_t s = 0; s < needed_[j].size(); ++s) {
      const int k = needed_[j][s];
      for (int i : holders_[k]) {
        Candidate c = candidate(instance_, timeline_, i, j, k);
        if (chosen == needed_[j].size() || laterByCompletion(best, c)) best = c, chosen = s;
      }
    }
    const int i = best.i, k = best.k;
    needed_[j][chosen] = needed_[j].back();  // the order of needed_ plays no part in the choice
    needed_[j].pop_back();
    timeline_.commit(i, j, k);
    holders_[k].push_back(j);
    --remaining_;
    // Equations 8 and 9: the virtual time of WR, kept for every rule.
    const int n = instance_.nodeCount();
    const double start = i == instance_.messages[k].source ? 0.0 : virtualAfter_[k * n + i];
    const double arrival = start + instance_.sendTime(i, k) + instance_.wireTime(i, j, k);
    virtualTime_[j] = std::max(virtualTime_[j], arrival) + instance_.recvTime(j, k);
    virtualAfter_[k * n + j] = virtualTime_[j];
  }

  MulticastPlan plan() const { return timeline_.plan(); }

 private:
  const MulticastInstance& instance_;
  MulticastTimeline timeline_;
  std::vector<std::vector<int>> holders_;  // [k]: A_k, the source and scheduled receivers
  std::vector<std::vector<int>> needed_;   // [j]: SR_j, the messages j still needs
  std::vector<double> virtualTime_;   // W_i of the last receive
  std::vector<double> virtualAfter_;  // [k * n + i]: W of i right after it received m_k
  int remaining_;
};

// The waiting receiver with the least key, ties by fasterReceiver.
template <class Key>
int leastReceiver(const ReceiverFirst& state, Key key) {
  int best = -1;
  for (int j = 0; j < state.nodeCount(); ++j) {
    if (!state.needs(j)) continue;
    if (best < 0 || key(j) < key(best) || (key(j) == key(best) && state.fasterReceiver(j, best))) best = j;
  }
  return best;
}

// splitmix64: a fixed, portable generator, so an RRS plan is reproducible
// from its seed on any platform.
class SplitMix {
 public:
  explicit SplitMix(std::uint64_t seed) : state_(seed) {}
  std::uint64_t next() {
    std::uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  int below(int bound) { return static_cast<int>((next() >> 11) % static_cast<std::uint64_t>(bound)); }

 private:
  std::uint64_t state_;
};

MulticastPlan receiverFirst(const MulticastInstance& instance, MulticastAlgorithm rule,
                            const MulticastOptions& options) {
  ReceiverFirst state(instance, options.preemptive);
  SplitMix random(options.seed);
  int turn = 0;
  std::vector<int> waiting;
  while (!state.done()) {
    int j = -1;
    switch (rule) {
      case MulticastAlgorithm::kWorkRacing:  // §4.3 step 1: least completed work
        j = leastReceiver(state, [&](int v) { return state.virtualTime(v); });
        break;
      case MulticastAlgorithm::kEarliestAvailableFirst:  // §6: least available time
        j = leastReceiver(state, [&](int v) { return state.timeline().receiveAvailable(v); });
        break;
      case MulticastAlgorithm::kRoundRobin:  // §6: destinations take turns
        for (int step = 0; step < state.nodeCount() && j < 0; ++step)
          if (int v = (turn + step) % state.nodeCount(); state.needs(v)) j = v;
        turn = j + 1;
        break;
      default:  // RRS: a receiver drawn uniformly among those still waiting
        waiting.clear();
        for (int v = 0; v < state.nodeCount(); ++v)
          if (state.needs(v)) waiting.push_back(v);
        j = waiting[random.below(static_cast<int>(waiting.size()))];
        break;
    }
    state.serve(j);
  }
  return state.plan();
}

}  // namespace

Result<MulticastPlan> planMulticastReference(const MulticastInstance& instance, MulticastAlgorithm algorithm,
                                     const MulticastOptions& options) {
  if (auto valid = checkInstance(instance); !valid) return valid.error();
  switch (algorithm) {
    case MulticastAlgorithm::kFastestEdgeFirst:
      if (options.preemptive) return Error{"FEF has no preemptive form (seed 004 §5)"};
      return fastestEdgeFirst(instance);
    case MulticastAlgorithm::kEarliestCompletionFirst:
      return earliestCompletionFirst(instance, options.preemptive);
    default:
      return receiverFirst(instance, algorithm, options);
  }
}

Result<MulticastPlan> scheduleReceiverOrderReference(const MulticastInstance& instance,
                                             std::span<const int> receivers, bool preemptive) {
  if (auto valid = checkInstance(instance); !valid) return valid.error();
  ReceiverFirst state(instance, preemptive);
  for (int j : receivers) {
    if (j < 0 || j >= instance.nodeCount() || !state.needs(j))
      return Error{"receiver " + std::to_string(j) + " has nothing left to receive"};
    state.serve(j);
  }
  if (!state.done()) return Error{"the receiver order ends before every destination is served"};
  return state.plan();
}

}  // namespace hnow::planner
