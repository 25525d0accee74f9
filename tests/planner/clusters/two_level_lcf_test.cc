#include <doctest/doctest.h>

#include <cmath>
#include <random>

#include "planner/clusters/two_level_bounds.h"
#include "planner/clusters/two_level_check.h"
#include "planner/clusters/two_level_lcf.h"
#include "planner/clusters/two_level_postal.h"
#include "two_level_brute_force.h"
#include "two_level_random.h"

using namespace hnow::planner;
using hnow::testing::bruteForceTwoLevel;
using hnow::testing::randomTwoLevel;
using hnow::testing::tinyOf;
using hnow::testing::checkAgainstOptimum;
using hnow::testing::validMakespan;

namespace {

// How many global transfers go into each cluster.
std::vector<int> copiesInto(const TwoLevelInstance& in, const Schedule& s) {
  ClusterLayout layout(in.sizes);
  std::vector<int> copies(layout.clusters(), 0);
  for (const Transfer& x : s)
    if (layout.clusterOf(x.from) != layout.clusterOf(x.to)) ++copies[layout.clusterOf(x.to)];
  return copies;
}

int ceilLog2(int n) { return static_cast<int>(std::ceil(std::log2(n) - 1e-12)); }

}  // namespace

TEST_CASE("LCF sends exactly one copy into every cluster but the source's: k - 1 global transfers") {
  std::mt19937 rng(11);
  for (int trial = 0; trial < 200; ++trial) {
    for (TwoLevelModel model : {TwoLevelModel::kBlocking, TwoLevelModel::kPostal}) {
      TwoLevelInstance in = randomTwoLevel(rng, 12, 9, 80, 5, false, model);
      Schedule s = largestClusterFirst(in);
      validMakespan(in, s);
      std::vector<int> copies = copiesInto(in, s);
      CHECK(copies[0] == 0);
      for (size_t c = 1; c < copies.size(); ++c) CHECK(copies[c] == 1);
      CHECK(globalTransferCount(ClusterLayout(in.sizes), s) == static_cast<int>(in.sizes.size()) - 1);
    }
  }
}

TEST_CASE("LCF on seed 001's bad example takes ceil(log n0) + C + ceil(log n1) (§3.2)") {
  for (int n0 : {2, 3, 4, 5, 8}) {
    for (int n1 : {n0, n0 + 3, 16}) {
      for (double C : {2.0, 3.5, 6.0}) {
        std::vector<int> sizes{n0, n1};
        for (int i = 0; i < n0 - 1; ++i) sizes.push_back(1);
        TwoLevelInstance in = broadcastInstance(sizes, 1.0, C);
        INFO("n0 = " << n0 << ", n1 = " << n1 << ", C = " << C);
        CHECK(validMakespan(in, largestClusterFirst(in)) == doctest::Approx(ceilLog2(n0) + C + ceilLog2(n1)));
      }
    }
  }
}

TEST_CASE("seed 001's faster schedule for its bad example is valid and beats LCF (§3.2)") {
  // n0 = n1 = 4, three singletons, C = 2. Nodes: K0 = 0..3, K1 = 4..7, singletons 8, 9, 10.
  TwoLevelInstance in = broadcastInstance({4, 4, 1, 1, 1}, 1.0, 2.0);
  Schedule faster{
      {0, 1, 0, 1},                                          // (i) one local copy
      {0, 4, 1, 3},  {1, 2, 1, 2}, {1, 3, 2, 3},             // (ii) K1 early, K0 local broadcast
      {2, 8, 2, 4},  {1, 9, 3, 5}, {3, 10, 3, 5},            // (iii) the singletons
      {4, 5, 3, 4},  {4, 6, 4, 5}, {5, 7, 4, 5},             // (iv) K1 local broadcast
  };
  const double seedFormula = 1 + std::max(2.0 + ceilLog2(4), ceilLog2(3) + 2.0);
  CHECK(validMakespan(in, faster) == doctest::Approx(seedFormula));
  CHECK(validMakespan(in, largestClusterFirst(in)) > seedFormula);
}

TEST_CASE("LCF interrupts local broadcasting once the holders cover the clusters without a copy (footnote 1)") {
  // K0 of 5 and two singletons: after one round 2 nodes hold the message and
  // 2 clusters lack it, so both send globally at time 1 instead of after
  // K0's ceil(log 5) = 3 rounds.
  TwoLevelInstance in = broadcastInstance({5, 1, 1}, 1.0, 3.0);
  auto firstGlobalStart = [&](const Schedule& s) {
    double first = 1e9;
    for (const Transfer& x : s)
      if (x.to >= 5) first = std::min(first, x.start);
    return first;
  };
  Schedule interrupted = runLcfPhases(in, {.lcfCopies = 7});
  Schedule plain = runLcfPhases(in, {.lcfCopies = 7, .footnoteInterrupt = false});
  validMakespan(in, interrupted);
  validMakespan(in, plain);
  CHECK(firstGlobalStart(interrupted) == doctest::Approx(1.0));
  CHECK(firstGlobalStart(plain) == doctest::Approx(3.0));
  Schedule lcf = largestClusterFirst(in);
  REQUIRE(lcf.size() == interrupted.size());
  for (size_t i = 0; i < lcf.size(); ++i) {
    CHECK(lcf[i].from == interrupted[i].from);
    CHECK(lcf[i].to == interrupted[i].to);
    CHECK(lcf[i].start == interrupted[i].start);
  }
}

TEST_CASE("LCF(m) starts no transfer once m nodes hold the message, so it makes between m and 2(m-1) copies (§4)") {
  TwoLevelInstance in = broadcastInstance({6, 5, 3, 2, 1}, 1.0, 2.5);
  in.needed.assign(in.sizes.size(), 0);  // no spread phase: LCF(m) alone
  for (int m = 2; m <= 17; ++m) {
    Schedule s = runLcfPhases(in, {.lcfCopies = m});
    const int copies = 1 + static_cast<int>(s.size());
    INFO("m = " << m);
    CHECK(copies >= m);
    CHECK(copies <= std::max(m, 2 * (m - 1)));
  }
}

TEST_CASE("LCF stays within Theorem 3.1's 2 log N + pC + 3 rounds on random clusters") {
  std::mt19937 rng(21);
  for (int trial = 0; trial < 300; ++trial) {
    TwoLevelInstance in = randomTwoLevel(rng, 30, 40, 600, 9, false);
    in.localTime = trial % 2 ? 1.0 : 0.5;
    in.globalTime = in.globalTime * in.localTime + (trial % 3) * 0.25;
    const int N = ClusterLayout(in.sizes).nodes();
    const int p = freeLocalSteps(in, 0);
    const double makespan = validMakespan(in, largestClusterFirst(in));
    INFO("N = " << N << ", k = " << in.sizes.size() << ", C = " << in.globalTime);
    CHECK(makespan <= (2 * std::log2(N) + 3) * in.localTime + p * in.globalTime + 1e-9);
  }
}

TEST_CASE("LCF is never better than the exhaustive optimum and within 2 OPT + 7 rounds of it (Theorem 3.3)") {
  std::mt19937 rng(31);
  const int strictlyWorse = checkAgainstOptimum(
      rng, 120, [](std::mt19937& r) { return randomTwoLevel(r, 4, 4, 7, 4, false); },
      [](const TwoLevelInstance& in) { return largestClusterFirst(in); }, 2, 7);
  MESSAGE("LCF above the optimum on " << strictlyWorse << " of 120 tiny instances");
}

TEST_CASE("postal LCF uses the sender's freedom: it is faster than blocking LCF when C is long") {
  TwoLevelInstance blocking = broadcastInstance({2, 1, 1, 1, 1, 1, 1}, 1.0, 6.0);
  TwoLevelInstance postal = blocking;
  postal.model = TwoLevelModel::kPostal;
  // Blocking: two waves of C (2, then 4 senders). Postal: each sender injects one
  // message per round, so all six are on their way within three rounds.
  CHECK(validMakespan(blocking, largestClusterFirst(blocking)) == doctest::Approx(1 + 2 * 6.0));
  CHECK(validMakespan(postal, largestClusterFirst(postal)) == doctest::Approx(1 + 2 + 6.0));
}

TEST_CASE("postal LCF is within 3 OPT + 4 rounds of the exhaustive optimum (Theorem 6.3)") {
  std::mt19937 rng(41);
  checkAgainstOptimum(
      rng, 120,
      [](std::mt19937& r) { return randomTwoLevel(r, 4, 4, 7, 4, false, TwoLevelModel::kPostal); },
      [](const TwoLevelInstance& in) { return largestClusterFirst(in); }, 3, 4);
}

TEST_CASE("Interleaved LCF alternates local and global sends and uses k - 1 global transfers (§6.2)") {
  // K0 of 4 and three clusters of 2, postal, C = 3. The source sends locally
  // at 0, globally at 1 (to the largest cluster), locally at 2.
  TwoLevelInstance in = broadcastInstance({4, 2, 2, 2}, 1.0, 3.0, TwoLevelModel::kPostal);
  Schedule s = interleavedLcf(in);
  validMakespan(in, s);
  std::vector<Transfer> bySource;
  for (const Transfer& x : s)
    if (x.from == 0) bySource.push_back(x);
  REQUIRE(bySource.size() >= 3);
  CHECK(bySource[0].to == 1);
  CHECK(bySource[1].to == 4);  // node 0 of cluster 1
  CHECK(bySource[1].start == doctest::Approx(1.0));
  CHECK(bySource[2].to < 4);
  CHECK(globalTransferCount(ClusterLayout(in.sizes), s) == 3);
}

TEST_CASE("Interleaved LCF is within 2 OPT_S of the best schedule with k - 1 global transfers (Theorem 6.4)") {
  std::mt19937 rng(51);
  for (int trial = 0; trial < 120; ++trial) {
    TwoLevelInstance in = randomTwoLevel(rng, 4, 4, 7, 4, false, TwoLevelModel::kPostal);
    auto tiny = tinyOf(in);
    tiny.oneCopyPerCluster = true;
    const int optS = bruteForceTwoLevel(tiny);
    REQUIRE(optS >= 0);
    Schedule s = interleavedLcf(in);
    const double makespan = validMakespan(in, s);
    std::vector<int> copies = copiesInto(in, s);
    for (size_t c = 1; c < copies.size(); ++c) CHECK(copies[c] == 1);
    INFO("sizes " << in.sizes.size() << ", C = " << in.globalTime);
    CHECK(makespan >= optS - 1e-9);
    CHECK(makespan <= 2 * optS + 1e-9);
  }
}

TEST_CASE("Interleaved LCF stays valid on random postal clusters with fractional times") {
  std::mt19937 rng(61);
  for (int trial = 0; trial < 200; ++trial) {
    TwoLevelInstance in = randomTwoLevel(rng, 20, 30, 300, 7, false, TwoLevelModel::kPostal);
    in.localTime = 0.3;
    in.globalTime = 0.3 + 0.7 * in.globalTime;
    Schedule s = interleavedLcf(in);
    CHECK(validMakespan(in, s) >= twoLevelLowerBound(in, {}, false).value() - 1e-9);
  }
}
