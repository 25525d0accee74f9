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
    buildMessageSets();
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

// Without preemption: the message sets as bits, and the messages grouped by
// size with each node's S, R and Avail + S for that size.
void MulticastCandidates::buildMessageSets() {
  const MulticastInstance& instance = instance_;
  const int messages = instance.messageCount();
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
}

MulticastTaskKey MulticastCandidates::bestFor(int j) {
  return timeline_.preemptive() ? bestByPair(j) : bestBySender(j, {kInfinity, 1, INT_MAX, INT_MAX, j});
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
