#include "planner/clusters/two_level_bounds.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <queue>

#include "planner/clusters/two_level_degree.h"
#include "planner/clusters/two_level_lcf.h"

namespace hnow::planner {

namespace {

// ⌈log2 x⌉ for x >= 1, 0 below.
int ceilLog2(double x) {
  int k = 0;
  for (double reach = 1.0; reach < x; reach *= 2.0) ++k;
  return k;
}

std::vector<int> othersLargestFirst(const TwoLevelInstance& instance) {
  std::vector<int> sizes(instance.sizes.begin() + 1, instance.sizes.end());
  std::sort(sizes.begin(), sizes.end(), std::greater<>());
  return sizes;
}

// Holders after each step of the free-local relaxation (largest clusters
// first, at most `perStep` per step), until `stop(step, holders, reached)`.
template <class Stop>
int relaxedSteps(const TwoLevelInstance& instance, int perStep, Stop stop) {
  const std::vector<int> sizes = othersLargestFirst(instance);
  long long holders = instance.sizes.empty() ? 0 : instance.sizes[0];
  int reached = 0, steps = 0;
  while (!stop(holders, reached) && reached < static_cast<int>(sizes.size())) {
    long long now = std::min<long long>(holders, static_cast<long long>(sizes.size()) - reached);
    if (perStep > 0) now = std::min<long long>(now, perStep);
    for (long long i = 0; i < now; ++i) holders += sizes[reached++];
    ++steps;
  }
  return steps;
}

int targetCount(const TwoLevelInstance& instance) {
  return static_cast<int>(targetNodes(instance).size());
}

TwoLevelBounds unlimitedBounds(const TwoLevelInstance& instance, int perStep, bool multicast) {
  TwoLevelBounds b;
  const double L = instance.localTime, C = instance.globalTime;
  b.doubling = ceilLog2(targetCount(instance)) * L;
  if (instance.model == TwoLevelModel::kPostal) {
    b.freeLocal = freeLocalPostalTime(instance);
    return b;
  }
  const int q = freeLocalSteps(instance, perStep);
  b.freeLocal = q * C;
  b.globalSteps = q;
  if (!multicast && perStep <= 0 && q >= 1) {
    // Theorem 3.2.
    const int N = ClusterLayout(instance.sizes).nodes();
    b.combined = (q - 1) * (C - L) + ceilLog2(N / 2.0) * L;
  } else if (!multicast && q >= 1) {
    // Theorem 5.4 with B <= floor(N/2) (§5.3).
    const int N = ClusterLayout(instance.sizes).nodes();
    const int B = std::max(1, std::min(perStep, N / 2));
    b.combined = (q - 1) * (C - L) + ceilLog2(B) * L;
  } else if (multicast && perStep <= 0) {
    // Theorem 4.2: p' global steps of LCF(k').
    const int kPrime = clustersNeedingCopy(instance);
    const int pPrime = relaxedSteps(instance, 0, [&](long long holders, int) {
      return holders >= kPrime;
    });
    if (kPrime >= 2 && pPrime >= 1)
      b.combined = (pPrime - 1) * (C - L) + ceilLog2(kPrime / 2.0) * L;
  }
  return b;
}

TwoLevelBounds larger(TwoLevelBounds a, const TwoLevelBounds& b) {
  a.doubling = std::max(a.doubling, b.doubling);
  a.freeLocal = std::max(a.freeLocal, b.freeLocal);
  a.combined = std::max(a.combined, b.combined);
  a.globalSteps = std::max(a.globalSteps, b.globalSteps);
  return a;
}

}  // namespace

double TwoLevelBounds::value() const { return std::max({doubling, freeLocal, combined, 0.0}); }

int freeLocalSteps(const TwoLevelInstance& instance, int perStep) {
  const int kPrime = clustersNeedingCopy(instance);
  return relaxedSteps(instance, perStep, [&](long long, int reached) { return reached >= kPrime; });
}

double freeLocalPostalTime(const TwoLevelInstance& instance) {
  const std::vector<int> sizes = othersLargestFirst(instance);
  if (sizes.empty()) return 0.0;
  // (time, senders): `senders` holders may each start a global send then.
  using Wave = std::pair<double, long long>;
  std::priority_queue<Wave, std::vector<Wave>, std::greater<>> waves;
  waves.push({0.0, instance.sizes[0]});
  size_t next = 0;
  double last = 0.0;
  while (next < sizes.size()) {
    auto [at, senders] = waves.top();
    waves.pop();
    for (long long i = 0; i < senders && next < sizes.size(); ++i) {
      last = at + instance.globalTime;
      waves.push({last, sizes[next++]});
    }
    waves.push({at + instance.localTime, senders});
  }
  return last;
}

TwoLevelBounds twoLevelLowerBound(const TwoLevelInstance& instance, const GlobalLimits& limits,
                                  bool multicast) {
  TwoLevelBounds b = unlimitedBounds(instance, limits.maxGlobal, multicast);
  if (limits.maxGlobal > 0) b = larger(b, unlimitedBounds(instance, 0, multicast));
  const bool degreeLimited = std::any_of(limits.degree.begin(), limits.degree.end(),
                                         [](int d) { return d > 0; });
  if (degreeLimited) {
    // Lemma 5.1: the reduced instance is no slower; its doubling bound counts
    // fewer targets, so keep the full instance's.
    b = larger(b, unlimitedBounds(degreeReducedInstance(instance, limits.degree), 0, multicast));
  }
  return b;
}

}  // namespace hnow::planner
