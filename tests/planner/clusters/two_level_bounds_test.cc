#include <doctest/doctest.h>

#include <random>

#include "planner/clusters/two_level_bounds.h"
#include "planner/clusters/two_level_check.h"
#include "planner/clusters/two_level_degree.h"
#include "planner/clusters/two_level_lcf.h"
#include "planner/clusters/two_level_postal.h"
#include "two_level_brute_force.h"
#include "two_level_random.h"

using hnow::Result;
using namespace hnow::planner;
using hnow::testing::bruteForceTwoLevel;
using hnow::testing::randomTwoLevel;
using hnow::testing::tinyOf;

namespace {

hnow::testing::TinyTwoLevel tiny(std::vector<int> sizes, std::vector<int> needed, int C,
                                 bool postal = false) {
  hnow::testing::TinyTwoLevel t;
  t.sizes = std::move(sizes);
  t.needed = std::move(needed);
  t.C = C;
  t.postal = postal;
  return t;
}

}  // namespace

TEST_CASE("the exhaustive reference finds the optimum of instances solved by hand") {
  // One cluster of n: doubling, ceil(log2 n) rounds.
  const int rounds[] = {0, 0, 1, 2, 2, 3, 3, 3};
  for (int n = 1; n <= 7; ++n) CHECK(bruteForceTwoLevel(tiny({n}, {n}, 3)) == rounds[n]);
  // Two single nodes: one global transfer.
  CHECK(bruteForceTwoLevel(tiny({1, 1}, {1, 1}, 3)) == 3);
  // {2, 1}, C = 3, blocking: a local copy then a global transfer, or the
  // other way round: 4. Postal: the global message injected at 0 and the
  // local one at 1 both arrive by 3.
  CHECK(bruteForceTwoLevel(tiny({2, 1}, {2, 1}, 3)) == 4);
  CHECK(bruteForceTwoLevel(tiny({2, 1}, {2, 1}, 3, true)) == 3);
  // A multicast to the single node of K1 only: one global transfer.
  CHECK(bruteForceTwoLevel(tiny({3, 1}, {0, 1}, 2)) == 2);
  // Three singletons to reach with C = 2: 1, 2 holders, so 2 steps; with
  // max_global = 1, three steps one after another.
  auto serial = tiny({1, 1, 1, 1}, {1, 1, 1, 1}, 2);
  CHECK(bruteForceTwoLevel(serial) == 4);
  serial.maxGlobal = 1;
  CHECK(bruteForceTwoLevel(serial) == 6);
  // K0 of 2 and two singletons, C = 2: a local copy, then both K0 nodes
  // send: 3. With degree 1 on K0 they cannot; best is the source sending to
  // one singleton at 0, which relays to the other at 2 while the source
  // copies locally: 4.
  auto degree = tiny({2, 1, 1}, {2, 1, 1}, 2);
  CHECK(bruteForceTwoLevel(degree) == 3);
  degree.degree = {1, 0, 0};
  CHECK(bruteForceTwoLevel(degree) == 4);
}

TEST_CASE("on single-node clusters pC is the exhaustive optimum") {
  // Holders 1, 2, 4 after each step of C: five clusters need three steps.
  TwoLevelInstance in = broadcastInstance({1, 1, 1, 1, 1}, 1.0, 2.0);
  TwoLevelBounds b = twoLevelLowerBound(in, {}, false);
  CHECK(b.globalSteps == 3);
  CHECK(b.freeLocal == doctest::Approx(3 * 2.0));
  CHECK(b.value() == doctest::Approx(6.0));
  CHECK(bruteForceTwoLevel(hnow::testing::tinyOf(in)) == 6);
}

TEST_CASE("Theorem 3.2's (p-1)(C-1) + ceil(log N/2) is the bound when many clusters are large") {
  // K0 of 1, K1 of 20, 22 clusters of 2: p = 3 (1, then 21 holders reach
  // 21 clusters, then the last); N = 65, C = 2: (3-1)(2-1) + ceil(log2 32.5)
  // = 2 + 6 = 8, above ceil(log2 65) = 7 and pC = 6.
  std::vector<int> sizes{1, 20};
  for (int i = 0; i < 22; ++i) sizes.push_back(2);
  TwoLevelBounds b = twoLevelLowerBound(broadcastInstance(sizes, 1.0, 2.0), {}, false);
  CHECK(b.globalSteps == 3);
  CHECK(b.doubling == doctest::Approx(7.0));
  CHECK(b.freeLocal == doctest::Approx(6.0));
  CHECK(b.combined == doctest::Approx(8.0));
  CHECK(b.value() == doctest::Approx(8.0));
}

TEST_CASE("the bounds scale with the local time: ceil(log N) rounds of L") {
  TwoLevelBounds b = twoLevelLowerBound(broadcastInstance({16}, 0.25, 3.0), {}, false);
  CHECK(b.value() == doctest::Approx(4 * 0.25));
}

TEST_CASE("the postal bound pC + c' is the free-local LCF's last arrival (Lemma 6.4)") {
  // K0 of 2 and five singletons, C = 4: K0's two nodes inject a copy each
  // per round, two at 0, two at 1, the fifth at 2, arriving at 2 + 4; the
  // clusters reached at 4 come too late to help.
  TwoLevelInstance in = broadcastInstance({2, 1, 1, 1, 1, 1}, 1.0, 4.0, TwoLevelModel::kPostal);
  CHECK(freeLocalPostalTime(in) == doctest::Approx(2 + 4.0));
}

TEST_CASE("the lower bound never exceeds the exhaustive optimum, in every model") {
  std::mt19937 rng(101);
  for (int trial = 0; trial < 300; ++trial) {
    const int model = trial % 5;  // broadcast, multicast, degree, matching, postal
    const bool multicast = model == 1 || (model >= 2 && model <= 3 && trial % 2);
    TwoLevelInstance in = randomTwoLevel(rng, 5, 4, 7, 4, multicast,
                                         model == 4 ? TwoLevelModel::kPostal : TwoLevelModel::kBlocking);
    GlobalLimits limits;
    auto tiny = tinyOf(in);
    if (model == 2) {
      for (int n : in.sizes) limits.degree.push_back(std::uniform_int_distribution<int>(0, n)(rng));
      tiny.degree = limits.degree;
    }
    if (model == 3) tiny.maxGlobal = limits.maxGlobal = std::uniform_int_distribution<int>(1, 2)(rng);
    const int opt = bruteForceTwoLevel(tiny);
    REQUIRE(opt >= 0);
    TwoLevelBounds b = twoLevelLowerBound(in, limits, multicast);
    INFO("model " << model << ", clusters " << in.sizes.size() << ", C = " << in.globalTime);
    CHECK(b.doubling <= opt + 1e-9);
    CHECK(b.freeLocal <= opt + 1e-9);
    CHECK(b.combined <= opt + 1e-9);
  }
}

TEST_CASE("no schedule of any algorithm is shorter than the lower bound on random clusters") {
  std::mt19937 rng(111);
  for (int trial = 0; trial < 200; ++trial) {
    const bool multicast = trial % 2;
    TwoLevelInstance in = randomTwoLevel(rng, 20, 30, 300, 8, multicast);
    in.globalTime += 0.5 * (trial % 3);
    auto makespan = [&](const Schedule& s, const GlobalLimits& limits) {
      Result<double> check = checkTwoLevel(in, limits, s);
      REQUIRE(check.ok());
      return *check;
    };
    const double plain = multicast ? makespan(lcfMulticast(in), {}) : makespan(largestClusterFirst(in), {});
    CHECK(plain >= twoLevelLowerBound(in, {}, multicast).value() - 1e-9);
    GlobalLimits degree{.degree = std::vector<int>(in.sizes.size(), 2)};
    CHECK(makespan(boundedDegreeLcf(in, degree.degree, multicast), degree) >=
          twoLevelLowerBound(in, degree, multicast).value() - 1e-9);
    GlobalLimits matching{.degree = {}, .maxGlobal = 3};
    CHECK(makespan(boundedSizeLcf(in, 3), matching) >=
          twoLevelLowerBound(in, matching, multicast).value() - 1e-9);
    if (!multicast) {
      TwoLevelInstance postal = in;
      postal.model = TwoLevelModel::kPostal;
      const double lb = twoLevelLowerBound(postal, {}, false).value();
      CHECK(checkTwoLevel(postal, {}, largestClusterFirst(postal)).value() >= lb - 1e-9);
      CHECK(checkTwoLevel(postal, {}, interleavedLcf(postal)).value() >= lb - 1e-9);
    }
  }
}
