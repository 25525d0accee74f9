#pragma once
// Incremental bookkeeping of the candidate tasks (send, i, j, k) that ECF
// and the receiver-first heuristics of seed 004 §4.2–§4.4 choose from, so a
// step no longer scans every (message, holder) pair (and, for ECF, every
// receiver). Two ways to find the best task for a receiver j:
// - Without preemption (§4) Equation 5 depends on the message only through
//   its size: Avail_i + S(i, l) + X(i, j)·l. So j's candidates are scanned
//   per sender and size, and bit sets of the messages each node holds, j
//   still needs and each node is the source of give the best message for
//   that sender (own source first, then the lowest index): O(N·M/64).
// - With preemption (§5) SendAvailable depends on the message. Per waiting
//   pair (j, k) the source is evaluated exactly (it wins ties, O(1)) and the
//   least arrival over the relays, the other holders, is cached with the
//   relay's MulticastTimeline::changes() count. Arrivals only grow (Avail
//   and SendAvailable never decrease), so a stale least arrival is still a
//   lower bound: it is rescanned only when it could decide the choice. A new
//   holder is folded in at once (new candidates are the only thing that can
//   lower a minimum).
// For ECF it also keeps each receiver's best key, exact when computed and a
// lower bound after: the least of keys that only grow stays the least while
// its own sender's and receiver's lists are unchanged.
#include <cstdint>
#include <limits>
#include <vector>

#include "planner/multicast/multicast.h"
#include "planner/multicast/multicast_timeline.h"
#include "planner/multicast/multicast_tournament.h"

namespace hnow::planner {

// A candidate's key under the tie rules of multicast_heuristics.h.
struct MulticastTaskKey {
  double time = std::numeric_limits<double>::infinity();
  int notOwnSource = 0;
  int message = 0;
  int sender = 0;
  int receiver = 0;
};

inline bool operator==(const MulticastTaskKey& a, const MulticastTaskKey& b) {
  return a.time == b.time && a.notOwnSource == b.notOwnSource && a.message == b.message && a.sender == b.sender &&
         a.receiver == b.receiver;
}

inline bool operator<(const MulticastTaskKey& a, const MulticastTaskKey& b) {
  if (a.time != b.time) return a.time < b.time;
  if (a.notOwnSource != b.notOwnSource) return a.notOwnSource < b.notOwnSource;
  if (a.message != b.message) return a.message < b.message;
  if (a.sender != b.sender) return a.sender < b.sender;
  return a.receiver < b.receiver;
}

class MulticastCandidates {
 public:
  // `instance` must be valid (checkInstance) and outlive this object.
  // `trackReceivers` keeps the per-receiver keys bestTask() needs (ECF).
  MulticastCandidates(const MulticastInstance& instance, bool preemptive, bool trackReceivers);

  // receivers_ orders by this object's own table.
  MulticastCandidates(const MulticastCandidates&) = delete;
  MulticastCandidates& operator=(const MulticastCandidates&) = delete;

  bool done() const { return remaining_ == 0; }
  // j is a destination of some message it has not been scheduled to receive.
  bool waiting(int j) const { return needCount_[j] > 0; }
  const MulticastTimeline& timeline() const { return timeline_; }

  // The least key among the tasks that send j something it still needs.
  // Requires waiting(j).
  MulticastTaskKey bestFor(int j);
  // The least key among all candidate tasks (requires trackReceivers and
  // !done()): ECF's choice.
  MulticastTaskKey bestTask();

  // Schedules (send, i, j, k) and (recv, j, i, k) and updates the bookkeeping.
  void commit(int i, int j, int k);
  // The last commit's S(i, l_k), X(i, j)·l_k and R(j, l_k), as the instance
  // gives them (WR's virtual times use them).
  struct TransferParts {
    double send, wire, receive;
  };
  const TransferParts& lastParts() const { return lastParts_; }

  MulticastPlan plan() const { return timeline_.plan(); }
  MulticastPlan takePlan() { return timeline_.takePlan(); }  // leaves this object spent

 private:
  // The messages of one size, and per node the parts of Equation 5 for it.
  struct SizeClass {
    double bytes;
    std::vector<std::uint64_t> messages;  // the messages of this size
    std::vector<double> send, receive;    // [v]: S(v, bytes), R(v, bytes)
    std::vector<double> sendEnd;          // [v]: Avail_v + S(v, bytes); [n]: +inf, the sentinel
    std::vector<int> bySendEnd;           // the nodes by sendEnd, then the sentinel n
    std::vector<int> positionOf;          // [v]: v's index in bySendEnd
    std::vector<double> fastestTo;        // [j]: the least X(i, j)·bytes, i != j
  };
  void raiseSendEnd(SizeClass& size, int v, double value);
  // What is known about the candidates for pair (j, k).
  struct Pair {
    int message;
    int source;
    double receive;        // R(j, m_k)
    double sourceSend;     // S(source, m_k)
    double sourceWire;     // X(source, j)·l_k
    double relayArrival;   // least relay arrival; a lower bound if stale; +inf if no relay
    double relaySecond;    // a lower bound on the other relays' arrivals
    int relay;             // the relay giving relayArrival, or -1
    std::uint32_t relayChanges;
  };
  struct ReceiverBest {
    MulticastTaskKey key;
    std::uint32_t receiverChanges = 0, senderChanges = 0;
  };
  struct Deferred {
    double time;
    int message;
    int index;  // into pending_[j]
  };

  void buildMessageSets();
  MulticastTaskKey bestBySender(int j, MulticastTaskKey best);
  void raiseToFloor(int v);
  MulticastTaskKey keyBySender(int i, int j) const;
  template <int kWords>
  void scanSenders(int j, const SizeClass& size, MulticastTaskKey& best) const;
  MulticastTaskKey bestByPair(int j);
  Pair& pairOf(int j, int k) { return pending_[j][slot_[static_cast<size_t>(k) * n_ + j]]; }
  bool relayFresh(const Pair& p) const { return p.relay >= 0 && timeline_.changes(p.relay) == p.relayChanges; }
  double sendAvailable(int i, int k);
  double relayArrival(int i, int j, int k);
  void rescanRelays(int j, Pair& p);
  int relayAt(int j, const Pair& p, double time);
  void removePending(int j, int k);

  const MulticastInstance& instance_;
  MulticastTimeline timeline_;
  const int n_;
  bool trackReceivers_;
  TransferParts lastParts_{0.0, 0.0, 0.0};
  int remaining_ = 0;
  std::vector<int> needCount_;                  // [j]: |SR_j|
  std::vector<double> avail_;                   // [v]: Avail_v (§4: the end of v's list)
  // Without preemption: message sets, 64 messages to a word, [v * words_ + w].
  int words_;
  std::vector<std::uint64_t> held_, needs_, sourced_;
  std::vector<SizeClass> sizes_;
  std::vector<int> sizeOf_;               // [k]: index into sizes_
  std::vector<double> linkTo_;            // [j * n + i]: X(i, j), j's column contiguous
  std::vector<std::uint64_t> wanted_;     // scratch: j's needs of one size
  std::vector<int> sourceOf_;             // [k]: m_k's source, flat for the own-source checks
  // With preemption, per waiting pair:
  std::vector<std::vector<Pair>> pending_;      // [j]: SR_j with the cached parts
  std::vector<int> slot_;                       // [k * n + j]: index into pending_[j]
  // With preemption or for ECF (the new relay's tasks are folded in):
  std::vector<std::vector<int>> waitingFor_;    // [k]: B_k, the receivers still waiting for m_k
  std::vector<int> waitingSlot_;                // [k * n + j]: index into waitingFor_[k]
  // With preemption:
  std::vector<std::vector<int>> holders_;       // [k]: A_k, the source first
  std::vector<ReceiverBest> receiverBest_;      // [j], when tracking receivers
  struct ByBestKey {
    const std::vector<ReceiverBest>* best = nullptr;
    bool operator()(int a, int b) const { return (*best)[a].key < (*best)[b].key; }
  };
  Tournament<ByBestKey> receivers_;  // the waiting receivers by receiverBest_
  // Preemptive SendAvailable walks a task list (Figure 16): memoized per
  // (k, i) with i's changes() count.
  std::vector<double> sendAvailableMemo_;
  std::vector<std::uint32_t> sendAvailableStamp_;  // changes(i) + 1; 0: never computed
  std::vector<Deferred> deferred_;              // scratch for bestFor
};

}  // namespace hnow::planner
