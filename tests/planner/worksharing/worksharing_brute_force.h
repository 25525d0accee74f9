#pragma once
// Exhaustive reference for worksharing on tiny clusters, written without the
// search under test: every subset, serve order and return order, each solved
// by the direct linear solve, keeping nonnegative shares (seed 002 §V-A (12)).
#include <algorithm>
#include <random>
#include <vector>

#include "planner/worksharing/worksharing.h"

namespace hnow::testing {

inline double bruteForceBestWork(const planner::WorksharingProblem& problem, bool allWorkers = false) {
  const int n = static_cast<int>(problem.workers.size());
  double best = 0.0;
  for (unsigned mask = allWorkers ? (1u << n) - 1 : 1; mask < (1u << n); ++mask) {
    std::vector<int> serve;
    for (int w = 0; w < n; ++w)
      if (mask & (1u << w)) serve.push_back(w);
    do {
      std::vector<int> back = serve;
      std::sort(back.begin(), back.end());
      do {
        auto a = planner::solveProtocol(problem, planner::Protocol{serve, back}, 1.0);
        if (a && planner::smallestShare(*a) >= 0) best = std::max(best, a->work);
      } while (std::next_permutation(back.begin(), back.end()));
    } while (std::next_permutation(serve.begin(), serve.end()));
  }
  return best;
}

// n workers with link times in [0.05, 1] and, unless node-homogeneous,
// computing times in [0.5, 2]; delta in [0, 1].
inline planner::WorksharingProblem randomWorksharing(std::mt19937& rng, int n, bool nodeHomogeneous) {
  std::uniform_real_distribution<double> tau(0.05, 1.0), r(0.5, 2.0), delta(0.0, 1.0);
  planner::WorksharingProblem p;
  p.resultRatio = delta(rng);
  const double shared = r(rng);
  for (int i = 0; i < n; ++i) p.workers.push_back({tau(rng), nodeHomogeneous ? shared : r(rng)});
  return p;
}

}  // namespace hnow::testing
