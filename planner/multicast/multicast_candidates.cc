#include "planner/multicast/multicast_candidates.h"

#include <algorithm>
#include <bit>
#include <climits>

namespace hnow::planner {

namespace {
constexpr double kInfinity = std::numeric_limits<double>::infinity();
}

MulticastCandidates::MulticastCandidates(const MulticastInstance& instance, bool preemptive, bool trackReceivers)
    : instance_(instance), timeline_(instance, preemptive), n_(instance.nodeCount()), trackReceivers_(trackReceivers),
      needCount_(n_, 0), avail_(n_, 0.0),
      words_((instance.messageCount() + 63) / 64) {
  const int messages = instance.messageCount();
  const size_t cells = static_cast<size_t>(messages) * n_;
  // The receiver-first rules without preemption need neither B_k nor A_k.
  const bool waitingSets = preemptive || trackReceivers;
  if (waitingSets) {
    waitingSlot_.assign(cells, -1);
    waitingFor_.resize(messages);
  }
  if (preemptive) holders_.resize(messages);
  for (int k = 0; k < messages; ++k) {
    const std::vector<int>& destinations = instance.messages[k].destinations;
    if (preemptive) holders_[k].reserve(destinations.size() + 1), holders_[k].push_back(instance.messages[k].source);
    if (waitingSets) {
      waitingFor_[k] = destinations;
      for (size_t at = 0; at < destinations.size(); ++at)
        waitingSlot_[static_cast<size_t>(k) * n_ + destinations[at]] = static_cast<int>(at);
    }
    for (int d : destinations) ++needCount_[d];
    remaining_ += static_cast<int>(destinations.size());
  }
  if (!preemptive) {
    const size_t sets = static_cast<size_t>(n_) * words_;
    held_.assign(sets, 0);
    needs_.assign(sets, 0);
    sourced_.assign(sets, 0);
    wanted_.assign(words_, 0);
    for (const MulticastMessage& m : instance.messages) sourceOf_.push_back(m.source);
    for (int k = 0; k < messages; ++k) {
      const std::uint64_t bit = std::uint64_t{1} << (k % 64);
      const int source = instance.messages[k].source;
      held_[static_cast<size_t>(source) * words_ + k / 64] |= bit;
      sourced_[static_cast<size_t>(source) * words_ + k / 64] |= bit;
      for (int d : instance.messages[k].destinations) needs_[static_cast<size_t>(d) * words_ + k / 64] |= bit;
      auto size = std::find_if(sizes_.begin(), sizes_.end(),
                               [&](const SizeClass& c) { return c.bytes == instance.messages[k].bytes; });
      if (size == sizes_.end()) {
        SizeClass c{instance.messages[k].bytes, std::vector<std::uint64_t>(words_, 0), {}, {}, {}, {}, {}, {}};
        for (int v = 0; v < n_; ++v) c.send.push_back(instance.sendTime(v, k)), c.receive.push_back(instance.recvTime(v, k));
        c.sendEnd = c.send;  // every Avail is 0
        for (int v = 0; v < n_; ++v) c.bySendEnd.push_back(v);
        std::sort(c.bySendEnd.begin(), c.bySendEnd.end(),
                  [&](int a, int b) { return c.sendEnd[a] < c.sendEnd[b]; });
        c.positionOf.resize(n_);
        for (int at = 0; at < n_; ++at) c.positionOf[c.bySendEnd[at]] = at;
        // A sentinel after the last node (index n, +inf) ends every move.
        c.bySendEnd.push_back(n_);
        c.sendEnd.push_back(kInfinity);
        for (int j = 0; j < n_; ++j) {  // the scans' early stop
          double fastest = kInfinity;
          for (int i = 0; i < n_; ++i)
            if (i != j) fastest = std::min(fastest, instance.link(i, j) * c.bytes);
          c.fastestTo.push_back(fastest);
        }
        sizes_.push_back(std::move(c));
        size = sizes_.end() - 1;
      }
      size->messages[k / 64] |= bit;
      sizeOf_.push_back(static_cast<int>(size - sizes_.begin()));
    }
    linkTo_.assign(static_cast<size_t>(n_) * n_, 0.0);
    for (int j = 0; j < n_; ++j)
      for (int i = 0; i < n_; ++i) linkTo_[static_cast<size_t>(j) * n_ + i] = instance.link(i, j);
  } else {
    slot_.assign(cells, -1);
    pending_.resize(n_);
    for (int k = 0; k < messages; ++k) {
      const int source = instance.messages[k].source;
      for (int d : instance.messages[k].destinations) {
        slot_[static_cast<size_t>(k) * n_ + d] = static_cast<int>(pending_[d].size());
        pending_[d].push_back({k, source, instance.recvTime(d, k), instance.sendTime(source, k),
                               instance.wireTime(source, d, k), kInfinity, kInfinity, -1, 0});
      }
    }
    sendAvailableMemo_.assign(cells, 0.0);
    sendAvailableStamp_.assign(cells, 0);
  }
  if (trackReceivers_) {
    receiverBest_.resize(n_);
    receivers_ = Tournament<ByBestKey>(n_, ByBestKey{&receiverBest_});
    for (int j = 0; j < n_; ++j) {
      receiverBest_[j].key.receiver = j;
      if (waiting(j)) receiverBest_[j].key = bestFor(j);  // every changes() count is still 0
      receivers_.update(j, waiting(j));
    }
  }
}

MulticastTaskKey MulticastCandidates::bestFor(int j) {
  return timeline_.preemptive() ? bestByPair(j) : bestBySender(j, {kInfinity, 1, INT_MAX, INT_MAX, j});
}

// The message sender i sends j among those of one size: i's own one if it
// is the source of some (the tie rule), the lowest index first; -1 if i
// holds none j needs. For one or two words without a branch on which word
// (the data make it unpredictable): the word to look in is chosen by a
// select, and its lowest bit is then never looked for in an empty word.
template <int kWords>
int firstMessage(const std::uint64_t* held, const std::uint64_t* sourced, const std::uint64_t* wanted, int words,
                 int& notOwn) {
  if constexpr (kWords == 1) {
    const std::uint64_t common = held[0] & wanted[0];
    if (common == 0) return -1;
    const std::uint64_t mine = common & sourced[0];
    notOwn = mine == 0;
    return __builtin_ctzll(mine != 0 ? mine : common);
  } else if constexpr (kWords == 2) {
    const std::uint64_t c0 = held[0] & wanted[0], c1 = held[1] & wanted[1];
    if ((c0 | c1) == 0) return -1;
    const std::uint64_t m0 = c0 & sourced[0], m1 = c1 & sourced[1];
    notOwn = (m0 | m1) == 0;
    const std::uint64_t low = notOwn ? c0 : m0, high = notOwn ? c1 : m1;
    return (low != 0 ? 0 : 64) + __builtin_ctzll(low != 0 ? low : high);
  } else {
    int message = -1, own = -1;
    for (int w = 0; w < words && own < 0; ++w) {
      const std::uint64_t common = held[w] & wanted[w];
      if (common == 0) continue;
      if (message < 0) message = w * 64 + std::countr_zero(common);
      if (const std::uint64_t mine = common & sourced[w]) own = w * 64 + std::countr_zero(mine);
    }
    notOwn = own < 0;
    return own < 0 ? message : own;
  }
}

// Per size and sender: one completion time for all the messages of that
// size the sender holds and j needs; the sender's best of them is its own
// message if it is the source of one (the tie rule), else the lowest index.
// Senders are visited by Avail + S, so the scan stops once even the fastest
// link into j could not complete by the best time found (equal times still
// count: the tie rules may prefer a later sender). kWords > 0 fixes the
// number of set words at compile time (M <= 128, the common case).
template <int kWords>
void MulticastCandidates::scanSenders(int j, const SizeClass& size, MulticastTaskKey& best) const {
  const int words = kWords > 0 ? kWords : words_;
  const double receive = size.receive[j];
  const double bytes = size.bytes;
  const double fastest = size.fastestTo[j];
  // Equation 6 is max(arrival, Avail_j) + R. Rounding is monotonic, so that
  // is max(arrival + R, Avail_j + R) bit for bit, and arrival + R > t rules
  // a candidate out (exactly when its completion is > t, for t at least
  // Avail_j + R): the tests below need no max, which the compiler emits as
  // a branch the data make unpredictable (receiver- or sender-bound).
  const double floor = MulticastTimeline::completion(avail_[j], avail_[j], receive);
  const double* linkTo = &linkTo_[static_cast<size_t>(j) * n_];
  const double* sendEnd = size.sendEnd.data();
  const std::uint64_t* wanted = wanted_.data();
  const int* sourceOf = sourceOf_.data();
  // Under the receiver-first rules j is often the bottleneck (Avail_j + R
  // is then the least time): if the first sender could make it, try the own
  // sources first, lowest message first; the first one arriving in time is
  // the best task of this size. (ECF's receivers rarely have one: there the
  // check costs more than it saves.)
  if (!trackReceivers_ && floor <= best.time &&
      MulticastTimeline::arrivalAfter(sendEnd[size.bySendEnd[0]], fastest) +
              receive <=
          floor) {
    for (int w = 0; w < words; ++w)
      for (std::uint64_t bits = wanted[w]; bits != 0; bits &= bits - 1) {
        const int k = w * 64 + std::countr_zero(bits);
        const int s = sourceOf[k];
        if (MulticastTimeline::arrivalAfter(sendEnd[s], linkTo[s] * bytes) + receive <= floor) {
          const MulticastTaskKey key{floor, 0, k, s, j};
          if (key < best) best = key;
          return;
        }
      }
  }
  // Sender i's best task of this size for j; true once nothing can beat
  // the best found.
  auto consider = [&](int i) __attribute__((always_inline)) {
    const double late = MulticastTimeline::arrivalAfter(sendEnd[i], linkTo[i] * bytes) + receive;
    if (late > best.time) return false;
    const std::uint64_t* held = &held_[static_cast<size_t>(i) * words];
    const std::uint64_t* sourced = &sourced_[static_cast<size_t>(i) * words];
    int notOwn = 1;
    const int message = firstMessage<kWords>(held, sourced, wanted, words, notOwn);
    if (message < 0) return false;  // i holds nothing j needs of this size
    const MulticastTaskKey key{std::max(late, floor), notOwn, message, i, j};
    if (key < best) best = key;
    // No time is below Avail_j + R: once an own source makes it, only the
    // own sources of lower messages can still win, and there are fewer of
    // them than senders left to scan when j is the bottleneck.
    if (best.notOwnSource != 0 || best.time != floor) return false;
    for (int w = 0; w < words && w * 64 < best.message; ++w) {
      std::uint64_t bits = wanted[w];
      if (w == best.message / 64) bits &= (std::uint64_t{1} << (best.message % 64)) - 1;
      for (; bits != 0; bits &= bits - 1) {
        const int k = w * 64 + std::countr_zero(bits);
        const int s = sourceOf[k];
        if (MulticastTimeline::arrivalAfter(sendEnd[s], linkTo[s] * bytes) + receive <= floor) {
          best = {floor, 0, k, s, j};
          return true;
        }
      }
    }
    return true;
  };
  // A sender whose Avail + S could not complete by the best time even over
  // j's fastest link ends the scan: the ones after it have larger values.
  auto beyond = [&](double sendEndValue) {
    return MulticastTimeline::arrivalAfter(sendEndValue, fastest) + receive > best.time;
  };
  for (const int* at = size.bySendEnd.data(), *end = at + n_; at != end; ++at) {
    if (beyond(sendEnd[*at])) return;
    if (consider(*at)) return;
  }
}

// A node's Avail only grows: it moves towards the end of the order, one
// place at a time while the next node's key is below its new one (an
// insertion step from where positionOf says it is). On the 80-node
// all-to-all a node moves ~35 places, twice per commit; replaying those
// moves, this predictable loop takes 37 ns a move against 53 ns for two
// binary searches (whose branches on the keys mispredict) and a memmove.
void MulticastCandidates::raiseSendEnd(SizeClass& size, int v, double value) {
  int* order = size.bySendEnd.data();
  int* position = size.positionOf.data();
  const double* key = size.sendEnd.data();
  size.sendEnd[v] = value;
  int at = position[v];
  for (; key[order[at + 1]] < value; ++at) {  // the sentinel's +inf stops it
    const int next = order[at + 1];
    order[at] = next;
    position[next] = at;
  }
  order[at] = v;
  position[v] = at;
}

// `best` starts as a known candidate (or +inf): it lets the scan stop early.
MulticastTaskKey MulticastCandidates::bestBySender(int j, MulticastTaskKey best) {
  const std::uint64_t* needs = &needs_[static_cast<size_t>(j) * words_];
  for (const SizeClass& size : sizes_) {
    bool any = false;
    for (int w = 0; w < words_; ++w) any |= (wanted_[w] = needs[w] & size.messages[w]) != 0;
    if (!any) continue;
    if (words_ == 1) scanSenders<1>(j, size, best);
    else if (words_ == 2) scanSenders<2>(j, size, best);
    else scanSenders<0>(j, size, best);
  }
  return best;
}

// Sender i's best task for j, as bestBySender would find it.
MulticastTaskKey MulticastCandidates::keyBySender(int i, int j) const {
  const std::uint64_t* needs = &needs_[static_cast<size_t>(j) * words_];
  const std::uint64_t* held = &held_[static_cast<size_t>(i) * words_];
  const std::uint64_t* sourced = &sourced_[static_cast<size_t>(i) * words_];
  MulticastTaskKey best{kInfinity, 1, INT_MAX, INT_MAX, j};
  for (const SizeClass& size : sizes_) {
    int message = -1, own = -1;
    for (int w = 0; w < words_ && own < 0; ++w) {
      const std::uint64_t common = held[w] & needs[w] & size.messages[w];
      if (common == 0) continue;
      if (message < 0) message = w * 64 + std::countr_zero(common);
      if (const std::uint64_t mine = common & sourced[w]) own = w * 64 + std::countr_zero(mine);
    }
    if (message < 0) continue;
    const double time = MulticastTimeline::completion(
        MulticastTimeline::arrivalAfter(size.sendEnd[i], linkTo_[static_cast<size_t>(j) * n_ + i] * size.bytes),
        avail_[j], size.receive[j]);
    const MulticastTaskKey key{time, own < 0 ? 1 : 0, own < 0 ? message : own, i, j};
    if (key < best) best = key;
  }
  return best;
}

MulticastTaskKey MulticastCandidates::bestTask() {
  for (;;) {
    const int j = receivers_.least();
    ReceiverBest& r = receiverBest_[j];
    // Exact if the cached task's own key has not moved (every other key of
    // j's only grew): certainly not while neither its sender's nor its
    // receiver's list changed; without preemption it is recomputed then.
    const bool unchanged =
        timeline_.changes(j) == r.receiverChanges && timeline_.changes(r.key.sender) == r.senderChanges;
    if (unchanged) return r.key;  // and no other receiver's lower bound is below it
    if (timeline_.preemptive()) {
      r.key = bestByPair(j);
    } else {
      const MulticastTaskKey again = keyBySender(r.key.sender, j);
      if (again == r.key) return r.key;
      r.key = bestBySender(j, again);
    }
    r.receiverChanges = timeline_.changes(j);
    r.senderChanges = timeline_.changes(r.key.sender);
    receivers_.update(j, true);
  }
}

void MulticastCandidates::removePending(int j, int k) {
  const size_t cell = static_cast<size_t>(k) * n_ + j;
  if (!waitingFor_.empty()) {
    std::vector<int>& waiting = waitingFor_[k];
    const int at = waitingSlot_[cell];
    waiting[at] = waiting.back();
    waitingSlot_[static_cast<size_t>(k) * n_ + waiting[at]] = at;
    waiting.pop_back();
    waitingSlot_[cell] = -1;
  }
  --needCount_[j];
  if (!timeline_.preemptive()) {
    const std::uint64_t bit = std::uint64_t{1} << (k % 64);
    needs_[static_cast<size_t>(j) * words_ + k / 64] &= ~bit;
    held_[static_cast<size_t>(j) * words_ + k / 64] |= bit;
    return;
  }
  std::vector<Pair>& pairs = pending_[j];
  const int index = slot_[cell];
  pairs[index] = pairs.back();
  slot_[static_cast<size_t>(pairs[index].message) * n_ + j] = index;
  pairs.pop_back();
  slot_[cell] = -1;
}

// v's Avail grew, so no task for v completes before Avail_v + R (the least
// R over the sizes): if that is above v's cached key, it is the better lower
// bound, with the tie fields at their least so it stays below every key of
// that time. v is then re-evaluated only once it is the least receiver
// (ECF: 17,401 re-evaluations instead of 24,299 on the 80-node all-to-all).
void MulticastCandidates::raiseToFloor(int v) {
  if (!waiting(v)) return;
  double floor = kInfinity;
  for (const SizeClass& size : sizes_) floor = std::min(floor, avail_[v] + size.receive[v]);
  MulticastTaskKey& key = receiverBest_[v].key;
  if (floor <= key.time) return;
  key.time = floor;
  key.notOwnSource = 0;
  key.message = -1;  // the sender is kept as the first one to try
  receivers_.update(v, true);
}

void MulticastCandidates::commit(int i, int j, int k) {
  if (timeline_.preemptive()) {
    timeline_.commit(i, j, k);
    lastParts_ = {instance_.sendTime(i, k), instance_.wireTime(i, j, k), instance_.recvTime(j, k)};
  } else {
    const SizeClass& size = sizes_[sizeOf_[k]];
    lastParts_ = {size.send[i], linkTo_[static_cast<size_t>(j) * n_ + i] * size.bytes, size.receive[j]};
    timeline_.append(i, j, k, lastParts_.send, lastParts_.wire, lastParts_.receive);
  }
  avail_[i] = timeline_.receiveAvailable(i);
  avail_[j] = timeline_.receiveAvailable(j);
  for (SizeClass& size : sizes_) {
    raiseSendEnd(size, i, avail_[i] + size.send[i]);
    raiseSendEnd(size, j, avail_[j] + size.send[j]);
  }
  removePending(j, k);
  --remaining_;
  if (trackReceivers_ && !waiting(j)) receivers_.update(j, false);
  if (trackReceivers_ && !timeline_.preemptive()) raiseToFloor(i), raiseToFloor(j);
  const bool relays = timeline_.preemptive();  // the per-pair relay caches exist only then
  if (!relays && !trackReceivers_) return;
  if (relays) holders_[k].push_back(j);
  if (waitingFor_[k].empty()) return;
  if (!relays) {  // ECF: j's tasks for m_k are new candidates, folded in at once
    const SizeClass& size = sizes_[sizeOf_[k]];
    const double sendEnd = size.sendEnd[j], bytes = size.bytes;
    const double* linkFrom = &instance_.linkPerByte[static_cast<size_t>(j) * n_];  // X(j, d), by d
    const double* receive = size.receive.data();
    for (int d : waitingFor_[k]) {
      // As in scanSenders: arrival + R above d's best time rules it out.
      const double late = MulticastTimeline::arrivalAfter(sendEnd, linkFrom[d] * bytes) + receive[d];
      ReceiverBest& r = receiverBest_[d];
      if (late > r.key.time) continue;
      const MulticastTaskKey key{std::max(late, MulticastTimeline::completion(avail_[d], avail_[d], receive[d])), 1,
                                 k, j, d};
      if (key < r.key) {
        r = {key, timeline_.changes(d), timeline_.changes(j)};
        receivers_.update(d, true);
      }
    }
    return;
  }
  // j now relays m_k: its tasks are new candidates, folded in at once.
  const double start = sendAvailable(j, k);
  const double send = instance_.sendTime(j, k);
  const std::uint32_t stamp = timeline_.changes(j);
  for (int d : waitingFor_[k]) {
    const double arrival = MulticastTimeline::arrival(start, send, instance_.wireTime(j, d, k));
    if (relays) {
      Pair& p = pairOf(d, k);
      if (arrival <= p.relayArrival) {  // also when p has no relay yet (+inf)
        p.relaySecond = p.relayArrival;
        p.relayArrival = arrival;
        p.relay = j;
        p.relayChanges = stamp;
      } else if (arrival < p.relaySecond) {
        p.relaySecond = arrival;
      }
    }
    if (trackReceivers_) {
      const MulticastTaskKey key{
          MulticastTimeline::completion(arrival, timeline_.receiveAvailable(d), instance_.recvTime(d, k)), 1, k, j, d};
      ReceiverBest& r = receiverBest_[d];
      if (key < r.key) {
        r = {key, timeline_.changes(d), stamp};
        receivers_.update(d, true);
      }
    }
  }
}

}  // namespace hnow::planner
