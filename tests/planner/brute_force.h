#pragma once
// Exhaustive references for small clusters, independent of the searches
// under test: every ready order (broadcast) or sender order (reduction).
#include <algorithm>
#include <limits>
#include <numeric>
#include <random>
#include <vector>

#include "planner/broadcast/broadcast.h"
#include "planner/reduction/reduction.h"

namespace hnow::testing {

inline double bruteForceBroadcast(const std::vector<double>& t, int source) {
  std::vector<int> order;
  for (int v = 0; v < static_cast<int>(t.size()); ++v)
    if (v != source) order.push_back(v);
  double best = std::numeric_limits<double>::infinity();
  if (order.empty()) return 0.0;
  do {
    auto s = planner::scheduleFromReadyOrder(t, source, order);
    best = std::min(best, s.back().end);
  } while (std::next_permutation(order.begin(), order.end()));
  return best;
}

// Over all distinct orders of the senders' times in the counting EP model
// (seed 003 §3), written out here rather than calling the planner.
inline double bruteForceReduction(const std::vector<double>& t, int sink) {
  std::vector<double> times;
  for (int v = 0; v < static_cast<int>(t.size()); ++v)
    if (v != sink) times.push_back(t[v]);
  if (times.empty()) return 0.0;
  std::sort(times.begin(), times.end());
  double best = std::numeric_limits<double>::infinity();
  do {
    int free = static_cast<int>(t.size());
    double now = 0.0, end = 0.0;
    std::vector<double> active;
    for (double x : times) {
      while (free < 2) {
        auto it = std::min_element(active.begin(), active.end());
        now = *it;
        active.erase(it);
        ++free;
      }
      active.push_back(now + x);
      end = std::max(end, now + x);
      free -= 2;
    }
    best = std::min(best, end);
  } while (std::next_permutation(times.begin(), times.end()));
  return best;
}

// n nodes drawn from `classes` distinct send times in [1, 4], in steps of 0.1
// (so ties between sums happen, as they do with measured rates rounded).
inline std::vector<double> randomCluster(std::mt19937& rng, int n, int classes) {
  std::uniform_int_distribution<int> tenth(10, 40);
  std::vector<double> speeds;
  for (int c = 0; c < classes; ++c) speeds.push_back(tenth(rng) / 10.0);
  std::uniform_int_distribution<int> pick(0, classes - 1);
  std::vector<double> t;
  for (int i = 0; i < n; ++i) t.push_back(speeds[pick(rng)]);
  return t;
}

inline int fastestNode(const std::vector<double>& t) {
  return static_cast<int>(std::min_element(t.begin(), t.end()) - t.begin());
}

}  // namespace hnow::testing
