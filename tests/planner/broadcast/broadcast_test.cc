#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "planner/brute_force.h"
#include "planner/broadcast/broadcast.h"
#include "planner/broadcast/broadcast_search.h"
#include "planner/schedule_check.h"

using namespace hnow::planner;
using hnow::testing::bruteForceBroadcast;
using hnow::testing::fastestNode;
using hnow::testing::randomCluster;

namespace {

double validMakespan(const std::vector<double>& t, int source, const Schedule& s) {
  auto check = checkBroadcast(t, source, s);
  REQUIRE_MESSAGE(check.ok(), check.error().message);
  return *check;
}

// Seed 000 Figure 2: a root of 1, one node of 2, five of 3.
const std::vector<double> kFigure2{1, 2, 3, 3, 3, 3, 3};

}  // namespace

TEST_CASE("FNF takes 5 on seed 000's counterexample, the optimum 4") {
  CHECK(validMakespan(kFigure2, 0, fastestNodeFirst(kFigure2, 0)) == doctest::Approx(5));
  OptimalBroadcast best = optimalBroadcast(kFigure2, 0);
  CHECK(best.provenOptimal);
  CHECK(validMakespan(kFigure2, 0, best.schedule) == doctest::Approx(4));
  CHECK(best.makespan == doctest::Approx(4));
}

TEST_CASE("FNF serves receivers fastest first, each from the sender that finishes earliest") {
  std::vector<double> t{1, 3, 2, 1};
  Schedule s = fastestNodeFirst(t, 0);
  REQUIRE(s.size() == 3);
  CHECK(s[0].to == 3);  // the fastest other node first
  CHECK(s[1].to == 2);
  CHECK(s[2].to == 1);
  CHECK(validMakespan(t, 0, s) == doctest::Approx(2));
}

TEST_CASE("FNF is optimal on two-class clusters (seed 000 Theorem 4.4)") {
  std::mt19937 rng(44);
  for (int trial = 0; trial < 300; ++trial) {
    int n = 2 + trial % 7;
    auto t = randomCluster(rng, n, 2);
    int source = fastestNode(t);
    double fnf = validMakespan(t, source, fastestNodeFirst(t, source));
    CHECK(fnf == doctest::Approx(bruteForceBroadcast(t, source)));
  }
  for (int n = 12; n <= 20; ++n) {  // beyond brute force: against the exact search
    auto t = randomCluster(rng, n, 2);
    int source = fastestNode(t);
    OptimalBroadcast best = optimalBroadcast(t, source);
    REQUIRE(best.provenOptimal);
    CHECK(validMakespan(t, source, fastestNodeFirst(t, source)) == doctest::Approx(best.makespan));
  }
}

TEST_CASE("FNF is optimal when every slower t is a multiple of every faster one (Theorem 4.5)") {
  std::mt19937 rng(45);
  std::uniform_int_distribution<int> power(0, 3);
  for (int trial = 0; trial < 300; ++trial) {
    int n = 2 + trial % 7;
    std::vector<double> t;
    for (int i = 0; i < n; ++i) t.push_back(std::ldexp(0.5, power(rng)));  // 0.5, 1, 2, 4
    int source = fastestNode(t);
    CHECK(validMakespan(t, source, fastestNodeFirst(t, source)) ==
          doctest::Approx(bruteForceBroadcast(t, source)));
  }
}

TEST_CASE("FNF is within twice the optimum for any given source (Theorems 4.6, 4.7)") {
  std::mt19937 rng(46);
  std::uniform_int_distribution<int> anyNode(0, 100);
  double worst = 0;
  for (int trial = 0; trial < 400; ++trial) {
    int n = 2 + trial % 7;
    auto t = randomCluster(rng, n, 1 + trial % 4);
    int source = anyNode(rng) % n;
    double ratio = validMakespan(t, source, fastestNodeFirst(t, source)) /
                   bruteForceBroadcast(t, source);
    CHECK(ratio <= 2.0 + 1e-9);
    worst = std::max(worst, ratio);
  }
  CHECK(worst > 1.0);  // the sample does contain clusters where FNF is not optimal
}

TEST_CASE("the baselines produce valid schedules of the expected shape") {
  std::vector<double> equal(8, 1.0);
  CHECK(validMakespan(equal, 0, binomialBroadcast(equal, 0)) == doctest::Approx(3));  // log2 8
  CHECK(validMakespan(equal, 3, binomialBroadcast(equal, 3)) == doctest::Approx(3));
  CHECK(validMakespan(equal, 0, flatBroadcast(equal, 0)) == doctest::Approx(7));
  CHECK(validMakespan(equal, 0, chainBroadcast(equal, 0)) == doctest::Approx(7));
  std::mt19937 rng(47);
  for (int trial = 0; trial < 200; ++trial) {
    int n = 1 + trial % 13;
    auto t = randomCluster(rng, n, 3);
    int source = trial % n;
    validMakespan(t, source, binomialBroadcast(t, source));
    validMakespan(t, source, flatBroadcast(t, source));
    validMakespan(t, source, chainBroadcast(t, source));
  }
}

TEST_CASE("the broadcast lower bound never exceeds the optimum") {
  std::mt19937 rng(48);
  for (int trial = 0; trial < 300; ++trial) {
    int n = 1 + trial % 8;
    auto t = randomCluster(rng, n, 3);
    int source = trial % n;
    CHECK(broadcastLowerBound(t, source) <= bruteForceBroadcast(t, source) + 1e-9);
  }
  std::vector<double> equal(8, 1.0);
  CHECK(broadcastLowerBound(equal, 0) == doctest::Approx(3));  // tight when homogeneous
}

TEST_CASE("the per-class and the single-queue decoders agree transfer for transfer") {
  std::mt19937 rng(50);
  for (int trial = 0; trial < 200; ++trial) {
    int n = 2 + trial % 60;
    // Few classes with integer times (many ties), or every node its own time.
    std::vector<double> t = trial % 2 ? randomCluster(rng, n, 1 + trial % 4) : std::vector<double>{};
    std::uniform_real_distribution<double> any(0.5, 4.0);
    if (t.empty())
      for (int i = 0; i < n; ++i) t.push_back(any(rng));
    int source = trial % n;
    std::vector<int> order;
    for (int v = 0; v < n; ++v)
      if (v != source) order.push_back(v);
    std::shuffle(order.begin(), order.end(), rng);
    Schedule a = scheduleFromReadyOrderForTesting(t, source, order, true);
    Schedule b = scheduleFromReadyOrderForTesting(t, source, order, false);
    REQUIRE(a.size() == b.size());
    for (size_t i = 0; i < a.size(); ++i) {
      CHECK(a[i].from == b[i].from);
      CHECK(a[i].to == b[i].to);
      CHECK(a[i].start == b[i].start);
    }
    validMakespan(t, source, a);
  }
}

TEST_CASE("FNF plans a million nodes") {
  std::mt19937 rng(49);
  auto t = randomCluster(rng, 1'000'000, 3);
  Schedule s = fastestNodeFirst(t, 0);
  CHECK(s.size() == 999'999u);
  CHECK(checkBroadcast(t, 0, s).ok());
}
