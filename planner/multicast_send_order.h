#pragma once
// The senders of one message size by Avail + S (seed 004 §4, Equation 5),
// for the scans of multicast_candidates.cc: a bucket queue. A scan visits
// the buckets in increasing order and stops at the first one whose least
// value could not make the best time; a node whose Avail grows moves to its
// new bucket in O(1), out of one circular list and into another. Keeping
// the nodes sorted instead cost ~35 places a move, twice per commit on the
// 80-node all-to-all (docs/bench-multicast.md).
//
// Exactness: a value's bucket is trunc(value · (1 / width)); rounding is
// monotonic, so a node in a later bucket has a larger value than every node
// in an earlier one. Each bucket keeps the least value put into it since it
// was last empty: a lower bound on its members that was itself a member's
// value, so "no member of this bucket can make it" holds for every later
// bucket too, with no assumption on the rounding error. Values past the
// window of buckets wait in one unordered list, scanned last.
#include <algorithm>
#include <bit>
#include <cstdint>
#include <limits>
#include <vector>

namespace hnow::planner {

class SendEndBuckets {
 public:
  SendEndBuckets() = default;
  // Nodes 0..values.size()-1 with values >= 0 (finite); width > 0.
  SendEndBuckets(const std::vector<double>& values, double width)
      : n_(static_cast<int>(values.size())), inverseWidth_(1.0 / width), value_(values) {
    int slots = 64;
    while (slots < 8 * n_) slots *= 2;
    mask_ = slots - 1;
    far_ = n_ + slots;
    // Nodes, then one list head per slot, then the far list's head: every
    // list is circular, so linking and unlinking need no test.
    next_.resize(far_ + 1);
    previous_.resize(far_ + 1);
    for (int h = n_; h <= far_; ++h) next_[h] = previous_[h] = h;
    lowest_.assign(slots, kInfinity);
    occupied_.assign(slots / 64, 0);
    slotOf_.assign(n_, 0);
    first_ = kLargest;
    for (int v = 0; v < n_; ++v) first_ = std::min(first_, indexOf(values[v]));
    for (int v = 0; v < n_; ++v) insert(v);
  }

  // v's value grows to `value` (never shrinks).
  void raise(int v, double value) {
    value_[v] = value;
    const int slot = slotOf_[v];
    next_[previous_[v]] = next_[v];
    previous_[next_[v]] = previous_[v];
    if (slot <= mask_ && next_[n_ + slot] == n_ + slot) {  // now empty
      lowest_[slot] = kInfinity;
      occupied_[slot >> 6] &= ~(std::uint64_t{1} << (slot & 63));
    }
    insert(v);
    if (next_[n_ + (first_ & mask_)] == n_ + (first_ & mask_)) advance();
  }

  // The window [first(), end()); nextBucket(b) is the first nonempty bucket
  // at or after b (first() <= b) or end(); a bucket's nodes run from
  // head(b) by next() until the value stop(b); the far list likewise.
  std::int64_t first() const { return first_; }
  std::int64_t end() const { return first_ + mask_ + 1; }
  std::int64_t nextBucket(std::int64_t b) const {
    const std::int64_t last = end();
    while (b < last) {
      const std::int64_t slot = b & mask_;
      const std::uint64_t bits = occupied_[slot >> 6] >> (slot & 63);
      if (bits != 0) return std::min(last, b + std::countr_zero(bits));
      b += 64 - (slot & 63);
    }
    return last;
  }
  // Calls visit(b) for the nonempty buckets of the window in order until
  // it returns true, and says whether it did: the words of occupied bits
  // walked with one count of trailing zeros a bucket.
  template <class Visit>
  __attribute__((always_inline)) bool scan(Visit visit) const {
    const std::int64_t last = end();
    std::int64_t base = first_ & ~std::int64_t{63};
    std::uint64_t bits = occupied_[(base & mask_) >> 6] & (~std::uint64_t{0} << (first_ & 63));
    for (;;) {
      for (; bits != 0; bits &= bits - 1) {
        // In the last word, which wraps around to the first one's, the
        // buckets from last on are the first word's again.
        const std::int64_t b = base + std::countr_zero(bits);
        if (b >= last) return false;
        if (visit(b)) return true;
      }
      base += 64;
      if (base >= last) return false;
      bits = occupied_[(base & mask_) >> 6];
    }
  }
  // A lower bound on the least value, in O(1): the first bucket's lowest
  // (+inf if every node is in the far list).
  double leastBound() const { return lowest_[first_ & mask_]; }
  int head(std::int64_t b) const { return next_[n_ + (b & mask_)]; }
  int stop(std::int64_t b) const { return n_ + static_cast<int>(b & mask_); }
  double lowest(std::int64_t b) const { return lowest_[b & mask_]; }
  int farHead() const { return next_[far_]; }
  int farStop() const { return far_; }
  int next(int v) const { return next_[v]; }

 private:
  static constexpr double kInfinity = std::numeric_limits<double>::infinity();
  // Half the range of int64_t, so end() cannot overflow.
  static constexpr std::int64_t kLargest = std::numeric_limits<std::int64_t>::max() / 2;

  std::int64_t indexOf(double value) const {
    const double x = value * inverseWidth_;
    return x < 4.0e18 ? static_cast<std::int64_t>(x) : kLargest;
  }
  void linkAfter(int head, int v) {
    next_[v] = next_[head];
    previous_[v] = head;
    previous_[next_[head]] = v;
    next_[head] = v;
  }
  void insert(int v) {
    const std::int64_t b = indexOf(value_[v]);
    if (b < end()) {
      const int slot = static_cast<int>(b & mask_);
      linkAfter(n_ + slot, v);
      slotOf_[v] = slot;
      lowest_[slot] = std::min(lowest_[slot], value_[v]);
      occupied_[slot >> 6] |= std::uint64_t{1} << (slot & 63);
    } else {
      linkAfter(far_, v);
      slotOf_[v] = mask_ + 1;
      farFirst_ = std::min(farFirst_, b);
    }
  }
  // The first bucket is empty: move the window up to the first nonempty
  // one and take in the far nodes that now fit. If the window is empty it
  // moves to the far list's least bucket; that one is a lower bound (it is
  // not raised when far nodes grow), exact after a pass over the far list,
  // so a second round at most finds a node.
  void advance() {
    for (;;) {
      const std::int64_t next = nextBucket(first_);
      if (next < end()) first_ = next;
      else if (farFirst_ < kLargest) first_ = farFirst_;
      else return;  // no nodes
      if (farFirst_ < end()) {
        int v = next_[far_];
        next_[far_] = previous_[far_] = far_;
        farFirst_ = kLargest;
        while (v != far_) {
          const int after = next_[v];
          insert(v);
          v = after;
        }
      }
      if (next_[n_ + (first_ & mask_)] != n_ + (first_ & mask_)) return;
    }
  }

  int n_ = 0;
  double inverseWidth_ = 1.0;
  std::int64_t mask_ = 0;
  int far_ = 0;                       // the far list's head
  std::int64_t first_ = 0;            // the window's first bucket, never above a node's bucket
  std::int64_t farFirst_ = kLargest;  // the least bucket in the far list
  std::vector<double> value_;
  std::vector<int> next_, previous_;
  std::vector<double> lowest_;           // [slot]: least value put in since it was last empty
  std::vector<std::uint64_t> occupied_;  // bit slot: the bucket is not empty
  std::vector<int> slotOf_;              // [v]: v's slot, mask_ + 1 for the far list
};

}  // namespace hnow::planner
