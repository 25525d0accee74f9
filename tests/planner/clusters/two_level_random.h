#pragma once
// Random two-level instances for property tests, and the conversion to the
// brute-force reference's form.
#include <random>
#include <vector>

#include <doctest/doctest.h>

#include "planner/clusters/two_level.h"
#include "planner/clusters/two_level_check.h"
#include "two_level_brute_force.h"

namespace hnow::testing {

// k clusters of sizes in [1, maxSize] with N <= maxNodes; integer C in [1, maxC].
inline planner::TwoLevelInstance randomTwoLevel(std::mt19937& rng, int maxClusters, int maxSize,
                                                int maxNodes, int maxC, bool multicast,
                                                planner::TwoLevelModel model =
                                                    planner::TwoLevelModel::kBlocking) {
  std::uniform_int_distribution<int> clusters(1, maxClusters), size(1, maxSize), c(1, maxC);
  std::vector<int> sizes;
  int total = 0;
  const int k = clusters(rng);
  for (int i = 0; i < k; ++i) {
    int n = std::min(size(rng), maxNodes - total - (k - 1 - i));
    if (n < 1) break;
    sizes.push_back(n);
    total += n;
  }
  planner::TwoLevelInstance in =
      planner::broadcastInstance(sizes, 1.0, static_cast<double>(c(rng)), model);
  if (multicast) {
    for (size_t i = 0; i < sizes.size(); ++i)
      in.needed[i] = std::uniform_int_distribution<int>(0, sizes[i])(rng);
  }
  return in;
}

inline TinyTwoLevel tinyOf(const planner::TwoLevelInstance& in) {
  TinyTwoLevel t;
  t.sizes = in.sizes;
  t.needed = in.needed;
  t.C = static_cast<int>(in.globalTime);
  t.postal = in.model == planner::TwoLevelModel::kPostal;
  return t;
}

// The validated makespan of `s`; fails the test if `s` is invalid.
inline double validMakespan(const planner::TwoLevelInstance& in, const planner::Schedule& s,
                            const planner::GlobalLimits& limits = {}) {
  Result<double> check = planner::checkTwoLevel(in, limits, s);
  REQUIRE_MESSAGE(check.ok(), check.error().message);
  return *check;
}

// Runs `plan` on `trials` random tiny instances drawn by `draw(rng)`:
// each schedule valid, never below the exhaustive optimum, and within
// factor·OPT + rounds. Returns how many were strictly worse than optimal.
template <class Draw, class Plan>
int checkAgainstOptimum(std::mt19937& rng, int trials, Draw draw, Plan plan, double factor,
                        double rounds) {
  int strictlyWorse = 0;
  for (int trial = 0; trial < trials; ++trial) {
    planner::TwoLevelInstance in = draw(rng);
    const int opt = bruteForceTwoLevel(tinyOf(in));
    REQUIRE(opt >= 0);
    const double makespan = validMakespan(in, plan(in));
    CHECK(makespan >= opt - 1e-9);
    CHECK(makespan <= factor * opt + rounds + 1e-9);
    if (makespan > opt + 1e-9) ++strictlyWorse;
  }
  return strictlyWorse;
}

}  // namespace hnow::testing
