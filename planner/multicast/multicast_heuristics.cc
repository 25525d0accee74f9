#include "planner/multicast/multicast_heuristics.h"

#include <algorithm>
#include <bit>
#include <limits>
#include <string>
#include <tuple>

#include "planner/multicast/multicast_candidates.h"
#include "planner/multicast/multicast_tournament.h"
#include "planner/multicast/multicast_timeline.h"

// The heuristics choose exactly what the direct versions in
// multicast_reference.cc choose (tests/planner/multicast_fast_test.cc), in
// far less time: seed 004 Table 1 has ECF at 45.6 ms for 80 nodes; the
// bookkeeping below keeps a step near the size of one receiver's or one
// message's waiting set (docs/bench-multicast.md).

namespace hnow::planner {

namespace {

// The waiting receivers as a bit set (RR's next in cyclic index order in
// O(n / 64)) and as a list in index order (RRS's r-th in O(1): membership
// changes only when a receiver is done, n times a plan, while RRS draws
// once a step).
class NodeSet {
 public:
  explicit NodeSet(int n) : n_(n), words_((n + 63) / 64, 0) {}
  void set(int v, bool in) {
    if (bool(words_[v / 64] & (std::uint64_t{1} << (v % 64))) != in) change(v, in);
  }
  int count() const { return static_cast<int>(members_.size()); }
  // The first member at or after `from` (0 <= from <= n), wrapping around.
  int nextFrom(int from) const {
    if (int v = firstIn(from, n_); v >= 0) return v;
    return firstIn(0, from);
  }
  // The member with `rank` members of lower index.
  int select(int rank) const { return members_[rank]; }

 private:
  void change(int v, bool in) {
    words_[v / 64] ^= std::uint64_t{1} << (v % 64);
    const auto at = std::lower_bound(members_.begin(), members_.end(), v);
    if (in) members_.insert(at, v);
    else members_.erase(at);
  }
  int firstIn(int from, int to) const {  // [from, to)
    for (int w = from / 64; w * 64 < to; ++w) {
      std::uint64_t word = words_[w];
      if (w == from / 64) word &= ~std::uint64_t{0} << (from % 64);
      if (word == 0) continue;
      const int v = w * 64 + std::countr_zero(word);
      return v < to ? v : -1;
    }
    return -1;
  }
  int n_;
  std::vector<std::uint64_t> words_;
  std::vector<int> members_;  // in index order
};

// §4.1: the edge of least latency S + X·l + R among holders and waiting
// destinations; the schedule is then laid out with §4's appends. This is
// Prim's algorithm run on every message at once: per waiting (destination,
// message) the best holder so far, per message its best edge, and a
// tournament over the messages. Ties: weight, receiver, sender, message.
MulticastPlan fastestEdgeFirst(const MulticastInstance& instance) {
  MulticastTimeline timeline(instance, false);
  const int n = instance.nodeCount(), messages = instance.messageCount();
  // Weight (Equation 7) = (S + X·l) + R, with S and R looked up once.
  const size_t cells = static_cast<size_t>(messages) * n;
  std::vector<double> receive(cells), weight(cells);  // [k * n + d]: R(d, m_k); d's lightest edge from A_k
  std::vector<int> from(cells);                        // [k * n + d]: that edge's holder
  struct Edge {
    double weight;
    int to, from;
  };
  auto lighter = [](const Edge& a, const Edge& b) {
    if (a.weight != b.weight) return a.weight < b.weight;
    return a.to != b.to ? a.to < b.to : a.from < b.from;
  };
  std::vector<Edge> messageBest(messages);
  // B_k as a bit set, [k * words + w]: visited in index order, so among
  // equally light edges the first one met has the lower receiver.
  const int words = (n + 63) / 64;
  std::vector<std::uint64_t> waiting(static_cast<size_t>(messages) * words, 0);
  for (int k = 0; k < messages; ++k) {
    const int source = instance.messages[k].source;
    const double send = instance.sendTime(source, k);
    bool first = true;
    for (int d : instance.messages[k].destinations) {
      const size_t c = static_cast<size_t>(k) * n + d;
      waiting[static_cast<size_t>(k) * words + d / 64] |= std::uint64_t{1} << (d % 64);
      receive[c] = instance.recvTime(d, k);
      weight[c] = send + instance.wireTime(source, d, k) + receive[c];
      from[c] = source;
      const Edge e{weight[c], d, source};
      if (first || lighter(e, messageBest[k])) messageBest[k] = e;
      first = false;
    }
  }
  auto lighterMessage = [&](int a, int b) {
    const Edge& x = messageBest[a];
    const Edge& y = messageBest[b];
    return lighter(x, y) || (!lighter(y, x) && a < b);
  };
  Tournament tournament(messages, lighterMessage);
  for (int k = 0; k < messages; ++k) tournament.update(k, !instance.messages[k].destinations.empty());
  for (int k; (k = tournament.least()) >= 0;) {
    const int i = messageBest[k].from, j = messageBest[k].to;
    timeline.commit(i, j, k);
    std::uint64_t* left = &waiting[static_cast<size_t>(k) * words];
    left[j / 64] &= ~(std::uint64_t{1} << (j % 64));
    // One pass over B_k, the hot loop of FEF (O(N) per step, O(N^3) for
    // all-to-all): j's edge replaces a waiting destination's lightest if
    // lighter (the lower sender on equal weight); the new lightest over B_k
    // has the lower receiver on equal weight (visited in index order).
    const double send = instance.sendTime(j, k), bytes = instance.messages[k].bytes;
    const double* link = &instance.linkPerByte[static_cast<size_t>(j) * n];
    const size_t row = static_cast<size_t>(k) * n;
    double leastWeight = std::numeric_limits<double>::infinity();
    int leastTo = -1;
    for (int w = 0; w < words; ++w) {
      for (std::uint64_t bits = left[w]; bits != 0; bits &= bits - 1) {
        const int d = w * 64 + std::countr_zero(bits);
        const double x = send + link[d] * bytes + receive[row + d];
        double& b = weight[row + d];
        if (x < b || (x == b && j < from[row + d])) b = x, from[row + d] = j;
        if (b < leastWeight) leastWeight = b, leastTo = d;  // weights are finite
      }
    }
    if (leastTo >= 0) messageBest[k] = {leastWeight, leastTo, from[row + leastTo]};
    tournament.update(k, leastTo >= 0);
  }
  return timeline.takePlan();
}

// §4.2 (and ECFP, §5): the task of earliest completion over all messages.
MulticastPlan earliestCompletionFirst(const MulticastInstance& instance, bool preemptive) {
  MulticastCandidates candidates(instance, preemptive, true);
  while (!candidates.done()) {
    const MulticastTaskKey best = candidates.bestTask();
    candidates.commit(best.sender, best.receiver, best.message);
  }
  return candidates.takePlan();
}

// §4.3's scheme shared by WR, EAF, RR and RRS: a rule picks the receiver;
// message and sender are then chosen by earliest completion among the
// messages the receiver still needs and their current holders.
class ReceiverFirst {
 public:
  // `workRacing` keeps WR's virtual times (Equations 8 and 9); the other
  // rules do not read them.
  ReceiverFirst(const MulticastInstance& instance, bool preemptive, bool workRacing = false)
      : instance_(instance), candidates_(instance, preemptive, false), workRacing_(workRacing),
        virtualTime_(workRacing ? instance.nodeCount() : 0, 0.0),
        virtualAfter_(workRacing ? static_cast<size_t>(instance.messageCount()) * instance.nodeCount() : 0, 0.0) {}

  bool done() const { return candidates_.done(); }
  int nodeCount() const { return instance_.nodeCount(); }
  bool needs(int j) const { return candidates_.waiting(j); }
  double virtualTime(int j) const { return virtualTime_[j]; }
  const MulticastTimeline& timeline() const { return candidates_.timeline(); }

  // WR and EAF's tie rule: the smaller receive overhead, then the lower index.
  bool faster(int a, int b) const {
    const MulticastNode& x = instance_.nodes[a];
    const MulticastNode& y = instance_.nodes[b];
    return std::tie(x.recvOverhead, x.recvPerByte, a) < std::tie(y.recvOverhead, y.recvPerByte, b);
  }

  // Serves j; returns the sender.
  int serve(int j) {
    const MulticastTaskKey best = candidates_.bestFor(j);
    const int i = best.sender, k = best.message;
    candidates_.commit(i, j, k);
    if (!workRacing_) return i;
    // Equations 8 and 9: WR's virtual time.
    const int n = instance_.nodeCount();
    // The source's entry stays 0 (it never receives its own message): no
    // test on who sent, which the data make unpredictable.
    const double start = virtualAfter_[k * n + i];
    const MulticastCandidates::TransferParts& parts = candidates_.lastParts();
    const double arrival = start + parts.send + parts.wire;
    virtualTime_[j] = std::max(virtualTime_[j], arrival) + parts.receive;
    virtualAfter_[k * n + j] = virtualTime_[j];
    return i;
  }

  MulticastPlan takePlan() { return candidates_.takePlan(); }

 private:
  const MulticastInstance& instance_;
  MulticastCandidates candidates_;
  bool workRacing_;
  std::vector<double> virtualTime_;   // W_i of the last receive
  std::vector<double> virtualAfter_;  // [k * n + i]: W of i right after it received m_k
};

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

// The waiting receiver of least key, ties by ReceiverFirst::faster: WR's
// virtual time (§4.3 step 1) or EAF's available time (§6). Only the served
// receiver's key moves in a step, and for EAF the sender's.
template <class Key>
MulticastPlan leastKeyFirst(ReceiverFirst& state, Key key, bool senderMoves) {
  const int n = state.nodeCount();
  std::vector<int> rank(n);  // position in the order of ReceiverFirst::faster
  for (int v = 0; v < n; ++v) rank[v] = v;
  std::sort(rank.begin(), rank.end(), [&](int a, int b) { return state.faster(a, b); });
  std::vector<int> byNode(n);
  for (int r = 0; r < n; ++r) byNode[rank[r]] = r;
  Tournament receivers(n, [&](int a, int b) {
    const double x = key(a), y = key(b);
    return x < y || (x == y && byNode[a] < byNode[b]);
  });
  for (int v = 0; v < n; ++v) receivers.update(v, state.needs(v));
  while (!state.done()) {
    const int j = receivers.least();
    const int i = state.serve(j);
    receivers.update(j, state.needs(j));
    if (senderMoves) receivers.update(i, state.needs(i));
  }
  return state.takePlan();
}

MulticastPlan receiverFirst(const MulticastInstance& instance, MulticastAlgorithm rule,
                            const MulticastOptions& options) {
  ReceiverFirst state(instance, options.preemptive, rule == MulticastAlgorithm::kWorkRacing);
  if (rule == MulticastAlgorithm::kWorkRacing)
    return leastKeyFirst(state, [&](int v) { return state.virtualTime(v); }, false);
  if (rule == MulticastAlgorithm::kEarliestAvailableFirst)
    return leastKeyFirst(state, [&](int v) { return state.timeline().receiveAvailable(v); }, true);
  NodeSet waiting(state.nodeCount());
  for (int v = 0; v < state.nodeCount(); ++v) waiting.set(v, state.needs(v));
  SplitMix random(options.seed);
  int turn = 0;
  while (!state.done()) {
    int j;
    if (rule == MulticastAlgorithm::kRoundRobin) {  // §6: destinations take turns in index order
      j = waiting.nextFrom(turn % state.nodeCount());
      turn = j + 1;
    } else {  // RRS: a receiver drawn uniformly among those still waiting, in index order
      j = waiting.select(random.below(waiting.count()));
    }
    state.serve(j);
    waiting.set(j, state.needs(j));
  }
  return state.takePlan();
}

}  // namespace

Result<MulticastPlan> planMulticast(const MulticastInstance& instance, MulticastAlgorithm algorithm,
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

Result<MulticastPlan> scheduleChoices(const MulticastInstance& instance,
                                      std::span<const MulticastChoice> choices, bool preemptive) {
  if (auto valid = checkInstance(instance); !valid) return valid.error();
  MulticastTimeline timeline(instance, preemptive);
  const int n = instance.nodeCount();
  for (const MulticastChoice& c : choices) {
    const std::string which = "choice (" + std::to_string(c.from) + ", " + std::to_string(c.to) + ", " +
                              std::to_string(c.message) + ")";
    if (c.message < 0 || c.message >= instance.messageCount() || c.from < 0 || c.from >= n || c.to < 0 ||
        c.to >= n)
      return Error{which + ": index out of range"};
    if (!timeline.holds(c.from, c.message)) return Error{which + ": the sender does not hold the message"};
    if (!timeline.pending(c.message, c.to)) return Error{which + ": the receiver does not need the message"};
    timeline.commit(c.from, c.to, c.message);
  }
  return timeline.takePlan();
}

Result<MulticastPlan> scheduleReceiverOrder(const MulticastInstance& instance,
                                            std::span<const int> receivers, bool preemptive) {
  if (auto valid = checkInstance(instance); !valid) return valid.error();
  ReceiverFirst state(instance, preemptive);
  for (int j : receivers) {
    if (j < 0 || j >= instance.nodeCount() || !state.needs(j))
      return Error{"receiver " + std::to_string(j) + " has nothing left to receive"};
    state.serve(j);
  }
  if (!state.done()) return Error{"the receiver order ends before every destination is served"};
  return state.takePlan();
}

}  // namespace hnow::planner
