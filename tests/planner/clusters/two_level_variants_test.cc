#include <doctest/doctest.h>

#include <random>

#include "planner/clusters/two_level_check.h"
#include "planner/clusters/two_level_degree.h"
#include "planner/clusters/two_level_lcf.h"
#include "two_level_brute_force.h"
#include "two_level_random.h"

using namespace hnow::planner;
using hnow::testing::bruteForceTwoLevel;
using hnow::testing::randomTwoLevel;
using hnow::testing::tinyOf;
using hnow::testing::checkAgainstOptimum;
using hnow::testing::validMakespan;

namespace {

// Random limits: each cluster a degree in [1, size] or none; B in [1, 3].
std::vector<int> randomDegrees(std::mt19937& rng, const TwoLevelInstance& in) {
  std::vector<int> degree;
  for (int n : in.sizes) degree.push_back(std::uniform_int_distribution<int>(0, n)(rng));
  return degree;
}

}  // namespace

TEST_CASE("LCF multicast informs every member and relays through nodes outside the group (§4)") {
  // K0 of 8 with only the source in the group, eight single-member clusters:
  // LCF(8) broadcasts in K0 first, so K0's other nodes send the copies.
  TwoLevelInstance in = broadcastInstance({8, 1, 1, 1, 1, 1, 1, 1, 1}, 1.0, 4.0);
  in.needed[0] = 1;
  Schedule s = lcfMulticast(in);
  CHECK(validMakespan(in, s) == doctest::Approx(3 + 4.0));
  int relayedByOutsiders = 0;
  for (const Transfer& x : s)
    if (x.from >= 1 && x.from < 8 && x.to >= 8) ++relayedByOutsiders;
  CHECK(relayedByOutsiders == 7);
}

TEST_CASE("LCF multicast sends no copy to clusters without members once LCF(k') is done") {
  // Phase 1 LCF(1) is empty (the source is one copy), phase 2 sends to the
  // one member cluster only, phase 3 informs its 3 members.
  TwoLevelInstance in = broadcastInstance({1, 6, 5, 4}, 1.0, 2.0);
  in.needed = {1, 0, 3, 0};
  Schedule s = lcfMulticast(in);
  CHECK(validMakespan(in, s) == doctest::Approx(2.0 + 2));
  CHECK(s.size() == 3u);
}

TEST_CASE("LCF multicast is within 2 OPT + 10 rounds of the exhaustive optimum (Theorem 4.3)") {
  std::mt19937 rng(71);
  checkAgainstOptimum(
      rng, 120, [](std::mt19937& r) { return randomTwoLevel(r, 4, 4, 7, 4, true); },
      [](const TwoLevelInstance& in) { return lcfMulticast(in); }, 2, 10);
}

TEST_CASE("LCF multicast stays valid on random groups with fractional times") {
  std::mt19937 rng(72);
  for (int trial = 0; trial < 300; ++trial) {
    TwoLevelInstance in = randomTwoLevel(rng, 25, 30, 400, 8, true);
    in.localTime = 0.7;
    in.globalTime = 0.7 * in.globalTime + 0.1;
    validMakespan(in, lcfMulticast(in));
  }
}

TEST_CASE("the bounded-degree reduction keeps min(d_i, n_i) nodes, members first (§5.2)") {
  TwoLevelInstance in = broadcastInstance({5, 5, 5, 2, 7}, 1.0, 3.0);
  in.needed = {1, 4, 0, 2, 7};
  std::vector<int> degree{3, 2, 0, 4, 3};
  TwoLevelInstance reduced = degreeReducedInstance(in, degree);
  // n' < d: keep min(n, d); n' >= d: keep d, all members; no degree: keep all.
  CHECK(reduced.sizes == std::vector<int>{3, 2, 5, 2, 3});
  CHECK(reduced.needed == std::vector<int>{1, 2, 0, 2, 3});
}

TEST_CASE("bounded-degree LCF never has more than d_i nodes of a cluster in global transfers") {
  std::mt19937 rng(81);
  for (int trial = 0; trial < 300; ++trial) {
    const bool multicast = trial % 2;
    TwoLevelInstance in = randomTwoLevel(rng, 20, 25, 300, 8, multicast);
    GlobalLimits limits{.degree = randomDegrees(rng, in)};
    Schedule s = boundedDegreeLcf(in, limits.degree, multicast);
    validMakespan(in, s, limits);
  }
}

TEST_CASE("bounded-degree LCF is within 3 OPT + 7 (broadcast, Theorem 5.1) and 3 OPT + 10 (multicast, Theorem 5.2)") {
  std::mt19937 rng(82);
  for (int trial = 0; trial < 120; ++trial) {
    const bool multicast = trial % 2;
    TwoLevelInstance in = randomTwoLevel(rng, 4, 4, 7, 4, multicast);
    GlobalLimits limits{.degree = randomDegrees(rng, in)};
    auto tiny = tinyOf(in);
    tiny.degree = limits.degree;
    const int opt = bruteForceTwoLevel(tiny);
    REQUIRE(opt >= 0);
    const double makespan = validMakespan(in, boundedDegreeLcf(in, limits.degree, multicast), limits);
    CHECK(makespan >= opt - 1e-9);
    CHECK(makespan <= 3 * opt + (multicast ? 10 : 7) + 1e-9);
  }
}

TEST_CASE("bounded-size LCF never has more than B global transfers in progress") {
  std::mt19937 rng(91);
  for (int trial = 0; trial < 300; ++trial) {
    const bool multicast = trial % 2;
    TwoLevelInstance in = randomTwoLevel(rng, 25, 20, 300, 8, multicast);
    GlobalLimits limits{.degree = {}, .maxGlobal = std::uniform_int_distribution<int>(1, 12)(rng)};
    validMakespan(in, boundedSizeLcf(in, limits.maxGlobal), limits);
  }
}

TEST_CASE("bounded-size LCF is within 2 OPT + 6 (broadcast, Theorem 5.5) and 2 OPT + 10 (multicast, Theorem 5.6)") {
  std::mt19937 rng(92);
  for (int trial = 0; trial < 120; ++trial) {
    const bool multicast = trial % 2;
    TwoLevelInstance in = randomTwoLevel(rng, 5, 3, 7, 4, multicast);
    GlobalLimits limits{.degree = {}, .maxGlobal = std::uniform_int_distribution<int>(1, 2)(rng)};
    auto tiny = tinyOf(in);
    tiny.maxGlobal = limits.maxGlobal;
    const int opt = bruteForceTwoLevel(tiny);
    REQUIRE(opt >= 0);
    const double makespan = validMakespan(in, boundedSizeLcf(in, limits.maxGlobal), limits);
    CHECK(makespan >= opt - 1e-9);
    CHECK(makespan <= 2 * opt + (multicast ? 10 : 6) + 1e-9);
  }
}

TEST_CASE("bounded-size LCF sends B more copies every C once LCF(B) is done (§5.3)") {
  // Source cluster of 4, twelve singletons, B = 2, C = 3: LCF(2) makes a
  // second copy in K0 at 1; from then two global transfers at a time, six
  // waves of C, the last ending at 1 + 6·3.
  std::vector<int> sizes{4};
  for (int i = 0; i < 12; ++i) sizes.push_back(1);
  TwoLevelInstance in = broadcastInstance(sizes, 1.0, 3.0);
  Schedule s = boundedSizeLcf(in, 2);
  CHECK(validMakespan(in, s, {.degree = {}, .maxGlobal = 2}) == doctest::Approx(1 + 6 * 3.0));
}
