#pragma once
// A tournament tree: the least of items 0..count-1 that are present, under
// a strict order given on the items' indices. Changing one item costs
// O(log count), so the multicast heuristics pick the next receiver (WR,
// EAF), message (FEF) or receiver's best task (ECF) without a scan.
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

}  // namespace hnow::planner
