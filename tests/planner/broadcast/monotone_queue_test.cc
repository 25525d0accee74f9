#include <doctest/doctest.h>

#include <queue>
#include <random>

#include "planner/broadcast/monotone_queue.h"

namespace {

struct Item {
  double key;
  int id;
};
struct KeyOf {
  double operator()(const Item& x) const { return x.key; }
};
struct Less {
  bool operator()(const Item& a, const Item& b) const {
    return a.key != b.key ? a.key < b.key : a.id < b.id;
  }
};
struct Greater {
  bool operator()(const Item& a, const Item& b) const { return Less{}(b, a); }
};

}  // namespace

TEST_CASE("the monotone queue pops what a binary heap pops, ties by the given order") {
  std::mt19937 rng(77);
  for (int trial = 0; trial < 50; ++trial) {
    hnow::planner::MonotoneQueue<Item, KeyOf, Less> queue;
    std::priority_queue<Item, std::vector<Item>, Greater> heap;
    double now = 0;
    int id = 0;
    std::uniform_int_distribution<int> coarse(0, 4);  // many equal keys
    std::uniform_real_distribution<double> fine(0, 3);
    for (int step = 0; step < 2000; ++step) {
      int pushes = heap.empty() ? 1 : static_cast<int>(rng() % 3);
      for (int p = 0; p < pushes; ++p) {
        double key = now + (trial % 2 ? coarse(rng) * 0.5 : fine(rng));
        queue.push({key, id});
        heap.push({key, id});
        ++id;
      }
      REQUIRE(queue.size() == heap.size());
      const Item a = queue.top(), b = heap.top();
      CHECK(a.key == b.key);
      CHECK(a.id == b.id);
      queue.pop();
      heap.pop();
      now = a.key;
    }
  }
}
