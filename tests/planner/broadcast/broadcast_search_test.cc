#include <doctest/doctest.h>

#include <random>

#include "planner/brute_force.h"
#include "planner/broadcast/broadcast.h"
#include "planner/broadcast/broadcast_search.h"
#include "planner/schedule_check.h"

using namespace hnow::planner;
using hnow::testing::bruteForceBroadcast;
using hnow::testing::randomCluster;

TEST_CASE("the optimal broadcast equals brute force on every small cluster tried, any source") {
  std::mt19937 rng(2000);
  int tried = 0;
  for (int n = 1; n <= 8; ++n) {
    for (int classes = 1; classes <= 4; ++classes) {
      for (int trial = 0; trial < (n <= 6 ? 60 : 15); ++trial) {
        auto t = randomCluster(rng, n, classes);
        int source = trial % n;
        OptimalBroadcast best = optimalBroadcast(t, source);
        auto check = checkBroadcast(t, source, best.schedule);
        REQUIRE_MESSAGE(check.ok(), check.error().message);
        CHECK(best.provenOptimal);
        CHECK(*check == doctest::Approx(best.makespan));
        CHECK(best.makespan == doctest::Approx(bruteForceBroadcast(t, source)));
        ++tried;
      }
    }
  }
  CHECK(tried > 1000);
}

TEST_CASE("a source strictly faster than everyone does not get Theorem 4.3's pruning") {
  // Found by brute force: with a source of 0.92 the best order is not fastest-first.
  std::vector<double> t{0.92, 1.4, 1.2, 1.4, 2.3, 2.3};
  OptimalBroadcast best = optimalBroadcast(t, 0);
  CHECK(best.makespan == doctest::Approx(bruteForceBroadcast(t, 0)));
  CHECK(best.makespan == doctest::Approx(3.04));
}

TEST_CASE("the plain branch-and-bound finds the same optimum with more search nodes") {
  std::mt19937 rng(2001);
  for (int trial = 0; trial < 40; ++trial) {
    auto t = randomCluster(rng, 9, 3);
    OptimalBroadcast smart = optimalBroadcast(t, 0);
    OptimalBroadcast plain = plainBranchAndBoundBroadcast(t, 0);
    CHECK(plain.provenOptimal);
    CHECK(plain.makespan == doctest::Approx(smart.makespan));
    CHECK(checkBroadcast(t, 0, plain.schedule).ok());
    CHECK(plain.stats.searchNodes >= smart.stats.searchNodes);
  }
}

TEST_CASE("a search stopped by its node limit returns a valid schedule, not proven optimal") {
  std::mt19937 rng(2002);
  auto t = randomCluster(rng, 30, 5);
  OptimalBroadcast best = optimalBroadcast(t, 0, SearchLimits{10});
  CHECK_FALSE(best.provenOptimal);
  CHECK(checkBroadcast(t, 0, best.schedule).ok());
  CHECK(best.stats.searchNodes <= 11);
}

TEST_CASE("the optimal broadcast is never worse than FNF and finishes large 3-class clusters") {
  std::mt19937 rng(2003);
  for (int n : {21, 32, 64}) {
    auto t = randomCluster(rng, n, 3);
    int source = hnow::testing::fastestNode(t);
    OptimalBroadcast best = optimalBroadcast(t, source);
    CHECK(best.provenOptimal);
    CHECK(checkBroadcast(t, source, best.schedule).ok());
    CHECK(best.makespan <= fastestNodeFirst(t, source).back().end + 1e-9);
  }
}
