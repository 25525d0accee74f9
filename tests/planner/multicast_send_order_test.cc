// planner/multicast_send_order.h: the bucket queue the sender scans rely on.
// What a scan assumes, checked after every move on random growth, with
// buckets narrow enough that nodes leave the window for the far list and
// come back as it moves up.
#include <doctest/doctest.h>

#include <algorithm>
#include <random>
#include <vector>

#include "planner/multicast_send_order.h"

using hnow::planner::SendEndBuckets;

namespace {

// Walks the buckets in order with scan(), then the far list, as scanSenders
// does, and checks: every node is visited once; each bucket's lowest() is at most its
// members' values; every node visited after a bucket has a value above all
// of that bucket's members (so stopping at a bucket is exact).
void checkScanOrder(const SendEndBuckets& order, const std::vector<double>& values) {
  std::vector<int> seen(values.size(), 0);
  double previousHighest = -1.0;  // the largest value met in the buckets before
  const std::int64_t last = order.end();
  double least = std::numeric_limits<double>::infinity();
  for (double v : values) least = std::min(least, v);
  CHECK(order.leastBound() <= least);
  std::int64_t previous = order.first() - 1;
  order.scan([&](std::int64_t b) {
    CHECK(b > previous);  // in increasing order, within the window
    CHECK(b < last);
    previous = b;
    double highest = -1.0;
    bool any = false;
    for (int i = order.head(b), stop = order.stop(b); i != stop; i = order.next(i)) {
      any = true;
      ++seen[i];
      CHECK(order.lowest(b) <= values[i]);
      CHECK(values[i] > previousHighest);
      highest = std::max(highest, values[i]);
    }
    CHECK(any);  // scan skips only empty buckets
    previousHighest = std::max(previousHighest, highest);
    return false;
  });
  for (int i = order.farHead(), stop = order.farStop(); i != stop; i = order.next(i)) {
    ++seen[i];
    CHECK(values[i] > previousHighest);
  }
  for (size_t v = 0; v < values.size(); ++v) CHECK(seen[v] == 1);
}

}  // namespace

TEST_CASE("the sender buckets keep every node once, in bucket order, through moves and the far list") {
  std::mt19937 rng(4);
  for (int round = 0; round < 40; ++round) {
    const int n = std::uniform_int_distribution<int>(1, 70)(rng);
    std::uniform_real_distribution<double> start(0.0, 5.0), jump(0.0, round % 2 ? 400.0 : 3.0);
    std::vector<double> values(n);
    for (double& v : values) v = start(rng);
    // Narrow buckets: 64 or 512 slots of width 0.05 cover 3.2-25.6, so
    // jumps of up to 400 send nodes to the far list.
    SendEndBuckets order(values, 0.05);
    checkScanOrder(order, values);
    std::uniform_int_distribution<int> node(0, n - 1);
    for (int step = 0; step < 300; ++step) {
      const int v = node(rng);
      // Equal values too: a node may stay in its bucket, or tie another.
      values[v] += step % 7 == 0 ? 0.0 : jump(rng);
      order.raise(v, values[v]);
      checkScanOrder(order, values);
    }
  }
}
