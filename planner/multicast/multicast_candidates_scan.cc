// MulticastCandidates without preemption (seed 004 §4): a receiver's best
// task found per sender and message size, the senders visited by Avail + S
// (multicast_candidates.h).
#include <algorithm>
#include <bit>
#include <climits>
#include <limits>

#include "planner/multicast/multicast_candidates.h"

namespace hnow::planner {

namespace {
constexpr double kInfinity = std::numeric_limits<double>::infinity();
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

}  // namespace hnow::planner
