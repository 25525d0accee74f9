#include "planner/broadcast/broadcast.h"

#include "planner/broadcast/monotone_queue.h"

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <queue>

namespace hnow::planner {

namespace {

// A ready node's next possible send completion.
// Ties: the source first (its place in the tree is given), then the faster
// sender, then the slot created first; the ready times do not depend on this.
struct Slot {
  double completion;
  double sendTime;
  int node;
  bool source;
  std::uint64_t seq;
  bool operator>(const Slot& o) const {
    if (completion != o.completion) return completion > o.completion;
    if (source != o.source) return o.source;
    if (sendTime != o.sendTime) return sendTime > o.sendTime;
    return seq > o.seq;
  }
};

struct CompletionOf {
  double operator()(const Slot& s) const { return s.completion; }
};
struct EarlierSlot {
  bool operator()(const Slot& a, const Slot& b) const { return b > a; }
};
// Ready times never go back, so a monotone queue fits; with a million
// distinct speeds it is several times faster than a binary heap.
using SlotQueue = MonotoneQueue<Slot, CompletionOf, EarlierSlot>;

std::vector<int> othersInIndexOrder(int n, int source) {
  std::vector<int> order;
  order.reserve(n > 0 ? n - 1 : 0);
  for (int v = 0; v < n; ++v)
    if (v != source) order.push_back(v);
  return order;
}

// Sends in a fixed per-node child order, each as soon as the sender holds the
// message and has finished its previous send. `children[v]` in sending order.
Schedule scheduleFromChildLists(std::span<const double> sendTime, int source,
                                const std::vector<std::vector<int>>& children) {
  Schedule out;
  std::vector<int> stack{source};
  std::vector<double> ready(sendTime.size(), 0.0);
  while (!stack.empty()) {
    int v = stack.back();
    stack.pop_back();
    double clock = ready[v];
    for (int c : children[v]) {
      out.push_back({v, c, clock, clock + sendTime[v]});
      clock += sendTime[v];
      ready[c] = clock;
      stack.push_back(c);
    }
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const Transfer& a, const Transfer& b) { return a.start < b.start; });
  return out;
}

Schedule decodeByClass(std::span<const double> sendTime, int source, std::span<const int> order) {
  // Global time never goes back, so the slots of one send time are created
  // in non-decreasing completion order: each speed class is a sorted FIFO,
  // and a heap over the class heads finds the next slot in O(log k) for k
  // distinct speeds instead of O(log n). The source is a class of its own.
  std::vector<double> speeds(sendTime.begin(), sendTime.end());
  std::sort(speeds.begin(), speeds.end());
  speeds.erase(std::unique(speeds.begin(), speeds.end()), speeds.end());
  const int sourceClass = static_cast<int>(speeds.size());
  std::vector<int> classOf(sendTime.size());
  std::vector<size_t> members(speeds.size() + 1, 0);
  for (int v = 0; v < static_cast<int>(sendTime.size()); ++v) {
    classOf[v] = v == source ? sourceClass
                             : static_cast<int>(std::lower_bound(speeds.begin(), speeds.end(),
                                                                 sendTime[v]) - speeds.begin());
    ++members[classOf[v]];
  }
  // Every node has one pending slot at most, so a ring of the class's size
  // holds them; all rings share one array (k may be as large as n).
  struct Ring {
    size_t offset = 0, capacity = 0, head = 0, size = 0;
  };
  std::vector<Ring> fifo(speeds.size() + 1);
  for (size_t c = 0, offset = 0; c < fifo.size(); offset += members[c], ++c)
    fifo[c] = {offset, members[c], 0, 0};
  std::vector<Slot> store(sendTime.size());
  SlotQueue heads;  // the head slot of every non-empty class
  auto add = [&](int cls, const Slot& slot) {
    Ring& r = fifo[cls];
    store[r.offset + (r.head + r.size++) % r.capacity] = slot;
    if (r.size == 1) heads.push(slot);
  };

  Schedule out;
  out.reserve(order.size());
  std::uint64_t seq = 0;
  add(sourceClass, {sendTime[source], sendTime[source], source, true, seq++});
  for (int receiver : order) {
    Slot s = heads.top();
    heads.pop();
    const int cls = classOf[s.node];
    Ring& r = fifo[cls];
    r.head = (r.head + 1) % r.capacity;
    if (--r.size > 0) heads.push(store[r.offset + r.head]);
    out.push_back({s.node, receiver, s.completion - s.sendTime, s.completion});
    add(cls, {s.completion + s.sendTime, s.sendTime, s.node, s.source, seq++});
    add(classOf[receiver], {s.completion + sendTime[receiver], sendTime[receiver], receiver, false, seq++});
  }
  return out;
}

Schedule decodeDirect(std::span<const double> sendTime, int source, std::span<const int> order) {
  // With most speeds distinct, classes buy nothing: every slot goes straight
  // into the monotone queue. Same order of ties as decodeByClass (the ring of
  // a class releases its slots in creation order).
  SlotQueue slots;
  std::uint64_t seq = 0;
  slots.push({sendTime[source], sendTime[source], source, true, seq++});
  Schedule out;
  out.reserve(order.size());
  for (int receiver : order) {
    Slot s = slots.top();
    slots.pop();
    out.push_back({s.node, receiver, s.completion - s.sendTime, s.completion});
    slots.push({s.completion + s.sendTime, s.sendTime, s.node, s.source, seq++});
    slots.push({s.completion + sendTime[receiver], sendTime[receiver], receiver, false, seq++});
  }
  return out;
}

// Classes pay off when speeds repeat, as in labs bought in batches; a sample
// of the nodes tells which case this is.
bool mostSpeedsDistinct(std::span<const double> sendTime) {
  const size_t sample = std::min<size_t>(sendTime.size(), 4096);
  std::vector<double> speeds(sendTime.begin(), sendTime.begin() + static_cast<long>(sample));
  std::sort(speeds.begin(), speeds.end());
  const size_t distinct = static_cast<size_t>(std::unique(speeds.begin(), speeds.end()) - speeds.begin());
  return distinct * 4 > sample * 3;
}

}  // namespace

Schedule scheduleFromReadyOrder(std::span<const double> sendTime, int source,
                                std::span<const int> order) {
  return mostSpeedsDistinct(sendTime) ? decodeDirect(sendTime, source, order)
                                      : decodeByClass(sendTime, source, order);
}

Schedule scheduleFromReadyOrderForTesting(std::span<const double> sendTime, int source,
                                          std::span<const int> order, bool byClass) {
  return byClass ? decodeByClass(sendTime, source, order) : decodeDirect(sendTime, source, order);
}

Schedule fastestNodeFirst(std::span<const double> sendTime, int source) {
  std::vector<int> order = othersInIndexOrder(static_cast<int>(sendTime.size()), source);
  std::stable_sort(order.begin(), order.end(),
                   [&](int a, int b) { return sendTime[a] < sendTime[b]; });
  return scheduleFromReadyOrder(sendTime, source, order);
}

Schedule binomialBroadcast(std::span<const double> sendTime, int source) {
  const int n = static_cast<int>(sendTime.size());
  auto node = [&](int rank) { return (rank + source) % n; };
  std::vector<std::vector<int>> children(n);
  for (int rank = 0; rank < n; ++rank) {
    // Children are rank + mask for every mask below rank's lowest set bit
    // (every mask for rank 0); MPICH sends the largest subtree first.
    const int lowBit = rank == 0 ? n : (rank & -rank);
    std::vector<int> kids;
    for (int mask = 1; mask < lowBit && rank + mask < n; mask <<= 1) kids.push_back(node(rank + mask));
    std::reverse(kids.begin(), kids.end());
    children[node(rank)] = std::move(kids);
  }
  return scheduleFromChildLists(sendTime, source, children);
}

Schedule flatBroadcast(std::span<const double> sendTime, int source) {
  std::vector<std::vector<int>> children(sendTime.size());
  children[source] = othersInIndexOrder(static_cast<int>(sendTime.size()), source);
  return scheduleFromChildLists(sendTime, source, children);
}

Schedule chainBroadcast(std::span<const double> sendTime, int source) {
  std::vector<std::vector<int>> children(sendTime.size());
  int previous = source;
  for (int v : othersInIndexOrder(static_cast<int>(sendTime.size()), source)) {
    children[previous] = {v};
    previous = v;
  }
  return scheduleFromChildLists(sendTime, source, children);
}

double broadcastLowerBound(std::span<const double> sendTime, int source) {
  const int n = static_cast<int>(sendTime.size());
  if (n <= 1) return 0.0;
  double fastest = sendTime[source == 0 ? 1 : 0];
  for (int v = 0; v < n; ++v)
    if (v != source) fastest = std::min(fastest, sendTime[v]);
  std::vector<double> relaxed(sendTime.begin(), sendTime.end());
  for (int v = 0; v < n; ++v)
    if (v != source) relaxed[v] = fastest;
  Schedule s = scheduleFromReadyOrder(relaxed, source, othersInIndexOrder(n, source));
  return s.empty() ? 0.0 : s.back().end;
}

}  // namespace hnow::planner
