// MulticastCandidates with preemption (seed 004 §5): SendAvailable depends
// on the message, so the best task for a receiver is kept per waiting
// (receiver, message) pair, the source exact and the relays' least arrival
// cached as a lower bound (multicast_candidates.h).
#include <algorithm>
#include <climits>
#include <limits>

#include "planner/multicast/multicast_candidates.h"

namespace hnow::planner {

namespace {
constexpr double kInfinity = std::numeric_limits<double>::infinity();
}

double MulticastCandidates::sendAvailable(int i, int k) {
  if (!timeline_.preemptive()) return timeline_.sendAvailable(i, k);
  const size_t cell = static_cast<size_t>(k) * n_ + i;
  const std::uint32_t stamp = timeline_.changes(i) + 1;
  if (sendAvailableStamp_[cell] != stamp) {
    sendAvailableMemo_[cell] = timeline_.sendAvailable(i, k);
    sendAvailableStamp_[cell] = stamp;
  }
  return sendAvailableMemo_[cell];
}

double MulticastCandidates::relayArrival(int i, int j, int k) {
  return MulticastTimeline::arrival(sendAvailable(i, k), instance_.sendTime(i, k), instance_.wireTime(i, j, k));
}

void MulticastCandidates::rescanRelays(int j, Pair& p) {
  const std::vector<int>& holders = holders_[p.message];
  double best = kInfinity, second = kInfinity;
  int relay = -1;
  for (size_t h = 1; h < holders.size(); ++h) {  // holders[0] is the source
    const double a = relayArrival(holders[h], j, p.message);
    if (a < best) second = best, best = a, relay = holders[h];
    else if (a < second) second = a;
  }
  p.relayArrival = best;
  p.relaySecond = second;
  p.relay = relay;
  p.relayChanges = relay >= 0 ? timeline_.changes(relay) : 0;
}

// The lowest-index relay completing at `time`: the least arrival's relay
// unless another one could complete at the same time (tied arrivals, or
// both receiver-bound: then Equation 6 is Avail_j + R for both).
int MulticastCandidates::relayAt(int j, const Pair& p, double time) {
  const double available = timeline_.receiveAvailable(j);
  if (MulticastTimeline::completion(p.relaySecond, available, p.receive) > time) return p.relay;
  int best = INT_MAX;
  const std::vector<int>& holders = holders_[p.message];
  for (size_t h = 1; h < holders.size(); ++h) {
    const int i = holders[h];
    if (i < best &&
        MulticastTimeline::completion(relayArrival(i, j, p.message), available, p.receive) == time)
      best = i;
  }
  return best;
}

MulticastTaskKey MulticastCandidates::bestByPair(int j) {
  const double available = timeline_.receiveAvailable(j);
  std::vector<Pair>& pairs = pending_[j];
  // Within one receiver the message breaks every tie left after the time
  // and the own-source rule, so (time, notOwnSource, message) decides.
  double bestTime = kInfinity;
  int bestNotOwn = 1, bestMessage = INT_MAX, bestIndex = -1;
  auto better = [&](double time, int notOwn, int message) {
    if (time != bestTime) return time < bestTime;
    if (notOwn != bestNotOwn) return notOwn < bestNotOwn;
    return message < bestMessage;
  };
  deferred_.clear();
  for (int index = 0; index < static_cast<int>(pairs.size()); ++index) {
    const Pair& p = pairs[index];
    const double arrival =
        MulticastTimeline::arrival(sendAvailable(p.source, p.message), p.sourceSend, p.sourceWire);
    const double fromSource = MulticastTimeline::completion(arrival, available, p.receive);
    if (better(fromSource, 0, p.message)) bestTime = fromSource, bestNotOwn = 0, bestMessage = p.message, bestIndex = index;
    if (p.relay < 0) continue;
    // A relay beats the source only by completing strictly earlier.
    const double fromRelay = MulticastTimeline::completion(p.relayArrival, available, p.receive);
    if (fromRelay >= fromSource) continue;
    if (relayFresh(p)) {
      if (better(fromRelay, 1, p.message)) bestTime = fromRelay, bestNotOwn = 1, bestMessage = p.message, bestIndex = index;
    } else {
      deferred_.push_back({fromRelay, p.message, index});  // a lower bound: resolve only if it could win
    }
  }
  if (!deferred_.empty()) {
    std::sort(deferred_.begin(), deferred_.end(), [](const Deferred& a, const Deferred& b) {
      return a.time != b.time ? a.time < b.time : a.message < b.message;
    });
    for (const Deferred& d : deferred_) {
      if (!better(d.time, 1, d.message)) break;  // neither can any later one
      Pair& p = pairs[d.index];
      rescanRelays(j, p);
      const double fromRelay = MulticastTimeline::completion(p.relayArrival, available, p.receive);
      if (better(fromRelay, 1, p.message)) bestTime = fromRelay, bestNotOwn = 1, bestMessage = p.message, bestIndex = d.index;
    }
  }
  const Pair& p = pairs[bestIndex];
  return {bestTime, bestNotOwn, p.message, bestNotOwn == 0 ? p.source : relayAt(j, p, bestTime), j};
}

}  // namespace hnow::planner
