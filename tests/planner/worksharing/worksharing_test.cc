#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>

#include "planner/worksharing/worksharing.h"
#include "planner/worksharing/worksharing_check.h"
#include "planner/worksharing/worksharing_plan.h"
#include "planner/worksharing/worksharing_small_results.h"
#include "worksharing_brute_force.h"

using hnow::Result;
using namespace hnow::planner;
using hnow::testing::randomWorksharing;

namespace {

WorksharingProblem twoWorkers(double tau1, double tau2, double r, double delta) {
  return WorksharingProblem{{{tau1, r}, {tau2, r}}, delta};
}

// The replay of `a` is valid and ends exactly at the lifespan (no-gap protocol).
void checkReplay(const WorksharingProblem& p, const Allocation& a) {
  auto timeline = replayAllocation(p, a);
  REQUIRE(timeline.ok());
  Result<double> makespan = checkWorksharing(p, *timeline, a.lifespan);
  REQUIRE_MESSAGE(makespan.ok(), makespan.error().message);
  CHECK(*makespan == doctest::Approx(a.lifespan).epsilon(1e-9));
}

}  // namespace

TEST_CASE("Theorem 1: the LIFO closed form equals the direct linear solve") {
  std::mt19937 rng(1);
  for (int trial = 0; trial < 40; ++trial) {
    WorksharingProblem p = randomWorksharing(rng, 1 + trial % 9, trial % 2 == 0);
    std::vector<int> order(p.workers.size());
    std::iota(order.begin(), order.end(), 0);
    std::shuffle(order.begin(), order.end(), rng);
    Allocation closed = lifoAllocation(p, order, 7.0);
    auto direct = solveProtocol(p, lifoProtocol(order), 7.0);
    REQUIRE(direct.ok());
    for (size_t w = 0; w < p.workers.size(); ++w)
      CHECK(closed.units[w] == doctest::Approx(direct->units[w]).epsilon(1e-10));
    CHECK(closed.work == doctest::Approx(direct->work).epsilon(1e-10));
    checkReplay(p, closed);
  }
}

TEST_CASE("Theorem 1 (3)-(4): LIFO shares are R^(k-1) L / prod (R + (1+delta) tau_j) when R is shared") {
  WorksharingProblem p{{{0.2, 1.5}, {0.5, 1.5}, {0.9, 1.5}}, 0.3};
  Allocation a = lifoAllocation(p, std::vector<int>{0, 1, 2}, 10.0);
  double product = 1.0, total = 0.0;
  for (int k = 0; k < 3; ++k) {
    product *= 1.5 + 1.3 * p.workers[k].linkTime;
    const double expected = std::pow(1.5, k) / product * 10.0;
    CHECK(a.units[k] == doctest::Approx(expected).epsilon(1e-12));
    total += expected;
  }
  CHECK(a.work == doctest::Approx(total).epsilon(1e-12));
}

TEST_CASE("Theorem 2: the FIFO closed form equals the direct linear solve") {
  std::mt19937 rng(2);
  for (int trial = 0; trial < 40; ++trial) {
    WorksharingProblem p = randomWorksharing(rng, 1 + trial % 9, trial % 2 == 0);
    std::vector<int> order(p.workers.size());
    std::iota(order.begin(), order.end(), 0);
    std::shuffle(order.begin(), order.end(), rng);
    Allocation closed = fifoAllocation(p, order, 3.0);
    auto direct = solveProtocol(p, fifoProtocol(order), 3.0);
    REQUIRE(direct.ok());
    for (size_t w = 0; w < p.workers.size(); ++w)
      CHECK(closed.units[w] == doctest::Approx(direct->units[w]).epsilon(1e-10));
    // Theorem 2(c): the prefix formula N_m / D_m gives the same total.
    CHECK(fifoPrefixWork(p, order).back() * 3.0 == doctest::Approx(direct->work).epsilon(1e-10));
    checkReplay(p, closed);
  }
}

TEST_CASE("§IV-D (10)-(11): two-worker LIFO and FIFO work match the closed forms") {
  const double r = 1.0, delta = 0.4, t1 = 0.3, t2 = 0.7;
  WorksharingProblem p = twoWorkers(t1, t2, r, delta);
  const double tt1 = (1 + delta) * t1, tt2 = (1 + delta) * t2;
  const double lifo = (2 * r + tt2) / ((r + tt1) * (r + tt2));
  const double fifo = (2 * r + t2 + delta * t1) / ((r + tt1) * (r + tt2) - delta * t1 * t2);
  std::vector<int> order{0, 1};
  CHECK(lifoAllocation(p, order, 1.0).work == doctest::Approx(lifo).epsilon(1e-12));
  CHECK(fifoAllocation(p, order, 1.0).work == doctest::Approx(fifo).epsilon(1e-12));
}

TEST_CASE("Theorem 3(a): FIFO beats LIFO when the slower link is served first") {
  for (double delta : {0.1, 0.5, 1.0}) {
    for (double t1 : {0.5, 1.0, 2.0}) {
      WorksharingProblem p = twoWorkers(t1, t1 * 0.6, 1.0, delta);  // tau1 >= tau2
      std::vector<int> order{0, 1};
      CHECK(fifoAllocation(p, order, 1.0).work > lifoAllocation(p, order, 1.0).work);
    }
  }
}

TEST_CASE("Theorem 3(b): FIFO still wins when tau1 is slightly below tau2, LIFO wins when tau1 << tau2") {
  for (double delta : {0.2, 0.6, 1.0}) {
    std::vector<int> order{0, 1};
    WorksharingProblem close = twoWorkers(0.99, 1.0, 1.0, delta);
    CHECK(fifoAllocation(close, order, 1.0).work > lifoAllocation(close, order, 1.0).work);
    WorksharingProblem far = twoWorkers(0.01, 1.0, 1.0, delta);
    CHECK(lifoAllocation(far, order, 1.0).work > fifoAllocation(far, order, 1.0).work);
  }
}

TEST_CASE("Theorem 1(c) and Proposition 4: serving faster links first does the most work") {
  std::mt19937 rng(3);
  for (int trial = 0; trial < 20; ++trial) {
    WorksharingProblem p = randomWorksharing(rng, 4, true);
    const std::vector<int> sorted = byIncreasingLinkTime(p);
    std::vector<int> order = sorted;
    std::sort(order.begin(), order.end());
    do {
      CHECK(lifoAllocation(p, sorted, 1.0).work >= lifoAllocation(p, order, 1.0).work * (1 - 1e-12));
    } while (std::next_permutation(order.begin(), order.end()));
    // Proposition 4 (two workers): FIFO prefers the faster link first.
    WorksharingProblem two{{p.workers[0], p.workers[1]}, p.resultRatio};
    std::vector<int> fast = byIncreasingLinkTime(two), slow{fast[1], fast[0]};
    if (two.workers[0].linkTime != two.workers[1].linkTime)
      CHECK(fifoAllocation(two, fast, 1.0).work > fifoAllocation(two, slow, 1.0).work);
  }
}

TEST_CASE("Proposition 1: adding worker m+1 raises FIFO's work iff W_m < 1/(delta tau_{m+1})") {
  std::mt19937 rng(4);
  int raises = 0, lowers = 0;
  for (int trial = 0; trial < 200; ++trial) {
    WorksharingProblem p = randomWorksharing(rng, 6, trial % 2 == 0);
    p.resultRatio = 0.5 + 0.5 * p.resultRatio;  // large results, where workers stop paying off
    for (auto& w : p.workers) w.linkTime *= 3;
    const std::vector<int> order = byIncreasingLinkTime(p);
    for (size_t m = 1; m < order.size(); ++m) {
      // W_m and W_{m+1} by the direct solve, independent of the prefix formula.
      auto wm = solveProtocol(p, fifoProtocol(std::span(order).first(m)), 1.0);
      auto wm1 = solveProtocol(p, fifoProtocol(std::span(order).first(m + 1)), 1.0);
      const double threshold = 1.0 / (p.resultRatio * p.workers[order[m]].linkTime);
      if (std::fabs(wm->work - threshold) < 1e-9) continue;
      CHECK((wm1->work > wm->work) == (wm->work < threshold));
      (wm1->work > wm->work ? raises : lowers)++;
    }
    // Selection keeps the prefix with the most work.
    const int m = fifoSelectedPrefix(p, order);
    const double kept = fifoAllocation(p, std::span(order).first(m), 1.0).work;
    for (size_t k = 1; k <= order.size(); ++k)
      CHECK(kept >= fifoAllocation(p, std::span(order).first(k), 1.0).work * (1 - 1e-12));
  }
  CHECK(raises > 0);
  CHECK(lowers > 0);  // the instances do exercise both sides of the test
}

TEST_CASE("worker selection leaves out a worker whose link costs more than it adds") {
  // delta = 1, a fast pair and one very slow link: FIFO does less with it.
  WorksharingProblem p{{{0.1, 1.0}, {0.1, 1.0}, {20.0, 1.0}}, 1.0};
  auto all = planWorksharing(p, WorksharingAlgorithm::kFifo, false, {1.0, std::nullopt});
  auto chosen = planWorksharing(p, WorksharingAlgorithm::kFifo, true, {1.0, std::nullopt});
  REQUIRE(all.ok());
  REQUIRE(chosen.ok());
  CHECK(chosen->leftOut == std::vector<int>{2});
  CHECK(chosen->allocation.work > all->allocation.work);
  CHECK(all->leftOut.empty());
}

TEST_CASE("§V-B: for small results the Smith's-rule return order is the best return order") {
  std::mt19937 rng(5);
  for (int trial = 0; trial < 30; ++trial) {
    WorksharingProblem p = randomWorksharing(rng, 5, trial % 2 == 0);
    p.resultRatio = 1e-3;
    const std::vector<int> order = byIncreasingLinkTime(p);
    auto chosen = solveProtocol(p, smallResultsProtocol(p, order), 1.0);
    REQUIRE(chosen.ok());
    std::vector<int> back = order;
    std::sort(back.begin(), back.end());
    double best = 0.0;
    do {
      best = std::max(best, solveProtocol(p, Protocol{order, back}, 1.0)->work);
    } while (std::next_permutation(back.begin(), back.end()));
    // Return orders differ by O(delta); the rule is exact to first order.
    CHECK(chosen->work >= best * (1 - 1e-8));
    checkReplay(p, *chosen);
  }
}

TEST_CASE("small-results with every worker kept is infeasible when a share is negative") {
  // Found by search: with delta = 1 the first-order order asks too much.
  WorksharingProblem p{{{1.45, 1.0}, {1.50, 1.0}, {0.95, 1.0}, {5.55, 1.0}, {5.65, 1.0}}, 1.0};
  auto direct = solveProtocol(p, smallResultsProtocol(p, byIncreasingLinkTime(p)), 1.0);
  REQUIRE(direct.ok());
  REQUIRE(smallestShare(*direct) < 0);  // the instance really has a negative share
  auto kept = planWorksharing(p, WorksharingAlgorithm::kSmallResults, false, {10.0, std::nullopt});
  REQUIRE(kept.ok());
  REQUIRE(kept->negativeShare.has_value());
  CHECK(kept->negativeShare->units < 0);
  CHECK(kept->allocation.units[kept->negativeShare->worker] == kept->negativeShare->units);
  auto selected = planWorksharing(p, WorksharingAlgorithm::kSmallResults, true, {10.0, std::nullopt});
  REQUIRE(selected.ok());
  CHECK_FALSE(selected->negativeShare.has_value());
  CHECK(smallestShare(selected->allocation) >= 0);
  checkReplay(p, selected->allocation);
}

TEST_CASE("every algorithm's allocation replays within the lifespan, one port each way") {
  std::mt19937 rng(6);
  for (int trial = 0; trial < 30; ++trial) {
    WorksharingProblem p = randomWorksharing(rng, 1 + trial % 6, trial % 3 == 0);
    for (auto algo : {WorksharingAlgorithm::kFifo, WorksharingAlgorithm::kLifo,
                      WorksharingAlgorithm::kSmallResults, WorksharingAlgorithm::kBest}) {
      for (bool select : {true, false}) {
        auto plan = planWorksharing(p, algo, select, {42.0, std::nullopt});
        REQUIRE(plan.ok());
        if (plan->negativeShare) continue;  // reported as infeasible, never replayed
        CHECK(plan->allocation.lifespan == 42.0);
        checkReplay(p, plan->allocation);
      }
    }
  }
}

TEST_CASE("a work goal is met in the lifespan the same protocol needs, above the lower bound") {
  std::mt19937 rng(7);
  for (int trial = 0; trial < 20; ++trial) {
    WorksharingProblem p = randomWorksharing(rng, 2 + trial % 5, trial % 2 == 0);
    auto byLifespan = planWorksharing(p, WorksharingAlgorithm::kFifo, true, {1.0, std::nullopt});
    auto byWork = planWorksharing(p, WorksharingAlgorithm::kFifo, true, {std::nullopt, 500.0});
    auto best = planWorksharing(p, WorksharingAlgorithm::kBest, true, {std::nullopt, 500.0});
    REQUIRE(byWork.ok());
    REQUIRE(best.ok());
    CHECK(byWork->allocation.work == 500.0);
    CHECK(byWork->allocation.lifespan == doctest::Approx(500.0 / byLifespan->allocation.work));
    checkReplay(p, byWork->allocation);
    REQUIRE(byWork->makespanLowerBound.has_value());
    CHECK(*byWork->makespanLowerBound <= best->allocation.lifespan * (1 + 1e-9));
    CHECK(best->allocation.lifespan <= byWork->allocation.lifespan * (1 + 1e-9));
    CHECK(*best->makespanLowerBound == best->allocation.lifespan);
  }
}
