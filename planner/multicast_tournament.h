#pragma once
// A tournament tree: the least of items 0..count-1 that are present, under
// a comparison given as a function of the items' indices. Changing one item
// costs O(log count); the multicast heuristics use it to pick the next
// receiver (WR, EAF), message (FEF) or receiver's best task (ECF), in the
// timed form below.
#include <bit>
#include <cstdint>
#include <vector>

namespace hnow::planner {

template <class Less>
class Tournament {
 public:
  Tournament() = default;
  Tournament(int count, Less less) : less_(less) {
    while (size_ < count) size_ *= 2;
    tree_.assign(2 * static_cast<size_t>(size_), -1);
  }
  // Call after the item's key changed, or to add or remove it.
  void update(int item, bool present) {
    int at = size_ + item;
    tree_[at] = present ? item : -1;
    for (at /= 2; at >= 1; at /= 2) tree_[at] = pick(tree_[2 * at], tree_[2 * at + 1]);
  }
  int least() const { return tree_[1]; }  // -1 when empty

 private:
  int pick(int a, int b) const {
    if (a < 0 || b < 0) return a < 0 ? b : a;
    return less_(b, a) ? b : a;
  }
  Less less_;
  int size_ = 1;
  std::vector<int> tree_;
};

// The same for items ordered by a time (a non-negative double), then by
// tieLess(a, b) among equal times. Each node carries its winner's time, as
// bits: non-negative doubles order as unsigned integers, so a level costs
// one integer comparison and a select instead of two calls through the
// items' keys and their branches. The heuristics update these ~6,000 to
// ~30,000 times per 80-node all-to-all.
template <class Time, class TieLess>
class TimedTournament {
 public:
  TimedTournament() = default;
  TimedTournament(int count, Time time, TieLess tieLess) : time_(time), tieLess_(tieLess) {
    while (size_ < count) size_ *= 2;
    tree_.assign(2 * static_cast<size_t>(size_), kAbsent);
  }
  // Call after the item's time or tie order changed, or to add or remove it.
  // The new winner of each level is carried up in registers and meets only
  // the sibling's stored winner: the sibling loads do not wait for the
  // previous level's store, so the levels cost a compare and two selects
  // each instead of a load through a just-written node (seven dependent
  // load-store round trips for 128 leaves). The winner is the least by
  // (time, tieLess), whichever side it is on: tieLess is a strict order.
  void update(int item, bool present) {
    Node* tree = tree_.data();
    unsigned at = static_cast<unsigned>(size_ + item);
    // + 0.0 turns a -0.0 into +0.0, which orders as the least bits.
    std::uint64_t time = present ? std::bit_cast<std::uint64_t>(time_(item) + 0.0) : kAbsent.time;
    int winner = present ? item : -1;
    tree[at] = Node{time, winner};
    for (; at > 1; at >>= 1) {
      const Node sibling = tree[at ^ 1];
      bool takeSibling = sibling.time < time;
      if (sibling.time == time) [[unlikely]]
        takeSibling = sibling.item >= 0 && tieLess_(sibling.item, winner);
      // Hinted as a coin toss: otherwise GCC makes the selects a branch on
      // which side wins, which the data make unpredictable.
      if (__builtin_expect_with_probability(takeSibling, 1, 0.5)) time = sibling.time, winner = sibling.item;
      tree[at >> 1] = Node{time, winner};
    }
  }
  int least() const { return tree_[1].item; }  // -1 when empty

 private:
  struct Node {
    std::uint64_t time;  // the time's bits; all ones if absent (above +inf)
    int item;            // -1 if absent
  };
  static constexpr Node kAbsent{~std::uint64_t{0}, -1};
  Time time_;
  TieLess tieLess_;
  int size_ = 1;
  std::vector<Node> tree_;
};

}  // namespace hnow::planner
