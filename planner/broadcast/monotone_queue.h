#pragma once
// A priority queue for event times that never go back (a radix heap): keys
// are non-negative doubles, whose IEEE-754 bit patterns order like the
// numbers, and every key pushed is at least the last one popped. An element
// moves down a bucket at a time between pops, so a million pushes and pops
// cost a fraction of a binary heap's cache misses. Elements with the
// smallest key wait in a small binary heap ordered by `Less`, which breaks ties.
#include <bit>
#include <cstdint>
#include <cstring>
#include <queue>
#include <vector>

namespace hnow::planner {

template <class T, class KeyOf, class Less>
class MonotoneQueue {
 public:
  bool empty() const { return size_ == 0; }
  size_t size() const { return size_; }

  // Precondition: keyOf(x) >= the key of the last element popped.
  void push(const T& x) {
    const std::uint64_t key = bits(KeyOf{}(x));
    if (key == last_) {
      ties_.push(x);
    } else {
      buckets_[bucketOf(key)].push_back(x);
    }
    ++size_;
  }

  const T& top() {
    refill();
    return ties_.top();
  }

  void pop() {
    refill();
    ties_.pop();
    --size_;
  }

 private:
  struct Greater {
    bool operator()(const T& a, const T& b) const { return Less{}(b, a); }
  };

  static std::uint64_t bits(double key) {
    std::uint64_t b;
    std::memcpy(&b, &key, sizeof b);
    return b;
  }
  int bucketOf(std::uint64_t key) const { return 64 - std::countl_zero(key ^ last_); }

  // Moves the smallest key's elements into `ties_` when it is empty: the
  // lowest non-empty bucket holds the minimum, and redistributing it around
  // that minimum sends every element to a strictly lower bucket.
  void refill() {
    if (!ties_.empty()) return;
    int i = 1;
    while (buckets_[i].empty()) ++i;
    std::vector<T> moving;
    moving.swap(buckets_[i]);
    std::uint64_t minimum = bits(KeyOf{}(moving.front()));
    for (const T& x : moving) minimum = std::min(minimum, bits(KeyOf{}(x)));
    last_ = minimum;
    for (const T& x : moving) {
      const std::uint64_t key = bits(KeyOf{}(x));
      if (key == last_) {
        ties_.push(x);
      } else {
        buckets_[bucketOf(key)].push_back(x);
      }
    }
    moving.clear();
    buckets_[i].swap(moving);  // keep the capacity for later
  }

  std::vector<T> buckets_[65];
  std::priority_queue<T, std::vector<T>, Greater> ties_;
  std::uint64_t last_ = 0;
  size_t size_ = 0;
};

}  // namespace hnow::planner
