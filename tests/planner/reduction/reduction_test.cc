#include <doctest/doctest.h>

#include <algorithm>
#include <random>

#include "planner/brute_force.h"
#include "planner/reduction/reduction.h"
#include "planner/schedule_check.h"

using namespace hnow::planner;
using hnow::testing::bruteForceReduction;
using hnow::testing::randomCluster;

namespace {

double validMakespan(const std::vector<double>& t, int sink, const Schedule& s) {
  auto check = checkReduction(t, sink, s);
  REQUIRE_MESSAGE(check.ok(), check.error().message);
  return *check;
}

// Seed 003 Figure 6: four nodes of x, eight of 1; the sink is one of the x.
std::vector<double> figure6(double x) {
  std::vector<double> t(4, x);
  t.resize(12, 1.0);
  return t;
}

}  // namespace

TEST_CASE("EP starts a transfer whenever two processors are free (seed 003 Figure 3)") {
  std::vector<double> t{10, 5, 5, 5, 4, 2, 2};  // Figure 1's cluster; node 0 is the sink
  std::vector<int> senders{1, 2, 3, 4, 5, 6};
  auto starts = earliestPossibleStarts(t, senders);
  // 7 processors: three transfers at 0 use six; the 7th waits for a completion.
  CHECK(starts[0] == 0);
  CHECK(starts[1] == 0);
  CHECK(starts[2] == 0);
  CHECK(starts[3] == 5);
  auto s = earliestPossibleSchedule(t, 0, senders);
  REQUIRE(s.ok());
  validMakespan(t, 0, s.value());
}

TEST_CASE("SNF takes x + 3 on seed 003's counterexample, the optimum is 4 or 2x + 1") {
  for (double x : {1.2, 1.3, 1.45, 1.5, 1.7, 1.9}) {
    auto t = figure6(x);
    auto snf = slowestNodeFirst(t, 0);
    REQUIRE(snf.ok());
    CHECK(validMakespan(t, 0, snf.value()) == doctest::Approx(x + 3));
    auto best = optimalReduction(t, 0);
    REQUIRE(best.ok());
    CHECK(best->provenOptimal);
    double expected = x < 1.5 ? 4.0 : 2 * x + 1;
    CHECK(validMakespan(t, 0, best->schedule) == doctest::Approx(expected));
  }
}

TEST_CASE("the optimal reduction equals brute force on every small cluster tried, any sink") {
  std::mt19937 rng(3000);
  int tried = 0;
  for (int n = 1; n <= 9; ++n) {
    for (int classes = 1; classes <= 5; ++classes) {
      for (int trial = 0; trial < 30; ++trial) {
        auto t = randomCluster(rng, n, classes);
        int sink = trial % n;
        auto best = optimalReduction(t, sink);
        REQUIRE(best.ok());
        CHECK(best->provenOptimal);
        double makespan = validMakespan(t, sink, best->schedule);
        CHECK(makespan == doctest::Approx(best->makespan));
        CHECK(makespan == doctest::Approx(bruteForceReduction(t, sink)));
        ++tried;
      }
    }
  }
  CHECK(tried > 1000);
}

TEST_CASE("every EP sender order of a small cluster becomes valid named transfers") {
  std::mt19937 rng(3001);
  for (int trial = 0; trial < 60; ++trial) {
    int n = 2 + trial % 7;
    auto t = randomCluster(rng, n, 1 + trial % 4);
    int sink = trial % n;
    std::vector<int> senders;
    for (int v = 0; v < n; ++v)
      if (v != sink) senders.push_back(v);
    do {
      auto s = earliestPossibleSchedule(t, sink, senders);
      REQUIRE(s.ok());
      auto starts = earliestPossibleStarts(t, senders);
      double end = 0;
      for (size_t i = 0; i < senders.size(); ++i) end = std::max(end, starts[i] + t[senders[i]]);
      CHECK(validMakespan(t, sink, s.value()) == doctest::Approx(end));
    } while (std::next_permutation(senders.begin(), senders.end()));
  }
}

TEST_CASE("every EP sender order of larger clusters becomes valid named transfers") {
  // Inequality 1 is all a reduction needs: a backward sweep always finds receivers.
  std::mt19937 rng(3004);
  for (int trial = 0; trial < 400; ++trial) {
    int n = 8 + trial % 53;
    auto t = randomCluster(rng, n, 1 + trial % 6);
    int sink = trial % n;
    std::vector<int> senders;
    for (int v = 0; v < n; ++v)
      if (v != sink) senders.push_back(v);
    std::shuffle(senders.begin(), senders.end(), rng);
    auto s = earliestPossibleSchedule(t, sink, senders);
    REQUIRE(s.ok());
    validMakespan(t, sink, s.value());
  }
}

TEST_CASE("SNF, binomial and the lower bound on random clusters") {
  std::mt19937 rng(3002);
  for (int trial = 0; trial < 300; ++trial) {
    int n = 1 + trial % 9;
    auto t = randomCluster(rng, n, 1 + trial % 5);
    int sink = trial % n;
    auto snf = slowestNodeFirst(t, sink);
    REQUIRE(snf.ok());
    double optimum = bruteForceReduction(t, sink);
    CHECK(validMakespan(t, sink, snf.value()) >= optimum - 1e-9);
    CHECK(validMakespan(t, sink, binomialReduction(t, sink)) >= optimum - 1e-9);
    CHECK(reductionLowerBound(t, sink) <= optimum + 1e-9);
  }
  std::vector<double> equal(16, 2.0);
  CHECK(validMakespan(equal, 0, binomialReduction(equal, 0)) == doctest::Approx(8));  // 4 rounds
  CHECK(validMakespan(equal, 5, binomialReduction(equal, 5)) == doctest::Approx(8));
  CHECK(reductionLowerBound(equal, 0) == doctest::Approx(8));
}

TEST_CASE("EP rejects a sender sequence that does not list every other node once") {
  std::vector<double> t{1, 1, 2};
  CHECK_FALSE(earliestPossibleSchedule(t, 2, std::vector<int>{0, 0}).ok());
  CHECK_FALSE(earliestPossibleSchedule(t, 2, std::vector<int>{0, 2}).ok());
  CHECK_FALSE(earliestPossibleSchedule(t, 2, std::vector<int>{0}).ok());
}

TEST_CASE("the optimal reduction finishes 32 nodes of 3 to 6 classes") {
  std::mt19937 rng(3003);
  for (int classes = 3; classes <= 6; ++classes) {
    auto t = randomCluster(rng, 32, classes);
    int sink = static_cast<int>(std::max_element(t.begin(), t.end()) - t.begin());
    auto best = optimalReduction(t, sink);
    REQUIRE(best.ok());
    CHECK(best->provenOptimal);
    CHECK(validMakespan(t, sink, best->schedule) <=
          validMakespan(t, sink, slowestNodeFirst(t, sink).value()) + 1e-9);
  }
}
