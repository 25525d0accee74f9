#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "planner/worksharing/worksharing_check.h"
#include "planner/worksharing/worksharing_local_search.h"
#include "planner/worksharing/worksharing_plan.h"
#include "planner/worksharing/worksharing_search.h"
#include "worksharing_brute_force.h"

using namespace hnow::planner;
using hnow::testing::bruteForceBestWork;
using hnow::testing::randomWorksharing;

TEST_CASE("best equals the brute force over subsets, serve orders and return orders") {
  std::mt19937 rng(11);
  for (int trial = 0; trial < 40; ++trial) {
    WorksharingProblem p = randomWorksharing(rng, 1 + trial % 5, trial % 2 == 0);
    if (trial % 4 == 3)
      for (auto& w : p.workers) w.linkTime *= 4;  // communication-bound: subsets matter
    for (bool select : {true, false}) {
      auto best = bestWorksharing(p, select, 1.0);
      REQUIRE(best.ok());
      CHECK(best->provenOptimal);
      CHECK(best->allocation.work == doctest::Approx(bruteForceBestWork(p, !select)).epsilon(1e-9));
      CHECK(smallestShare(best->allocation) >= 0);
      auto timeline = replayAllocation(p, best->allocation);
      REQUIRE(timeline.ok());
      auto check = checkWorksharing(p, *timeline, 1.0);
      CHECK_MESSAGE(check.ok(), check.error().message);
    }
  }
}

TEST_CASE("best equals the brute force for every result ratio, including delta = 1") {
  // The bounds that cut the search weaken as delta grows (return contention),
  // so check exactness per delta, up to six workers, with and without selection.
  std::mt19937 rng(21);
  for (double delta : {0.05, 0.25, 0.5, 1.0}) {
    for (int trial = 0; trial < 6; ++trial) {
      const int n = trial == 0 && (delta == 0.25 || delta == 1.0) ? 6 : 4 + trial % 2;
      WorksharingProblem p = randomWorksharing(rng, n, trial % 2 == 0);
      p.resultRatio = delta;
      if (trial % 3 == 2)
        for (auto& w : p.workers) w.linkTime *= 4;  // communication-bound: subsets matter
      for (bool select : {true, false}) {
        if (n == 6 && !select) continue;  // the six-worker brute force is slow: twice in all
        auto best = bestWorksharing(p, select, 1.0);
        REQUIRE(best.ok());
        CHECK(best->provenOptimal);
        CHECK(best->allocation.work == doctest::Approx(bruteForceBestWork(p, !select)).epsilon(1e-9));
        CHECK(smallestShare(best->allocation) >= 0);
        if (!select) CHECK(best->allocation.protocol.serveOrder.size() == p.workers.size());
      }
    }
  }
}

TEST_CASE("with delta = 1, reversing time (serve in reverse return order) keeps every share") {
  // The symmetry best uses to search only one of each mirrored pair of orders.
  std::mt19937 rng(23);
  for (int trial = 0; trial < 20; ++trial) {
    WorksharingProblem p = randomWorksharing(rng, 2 + trial % 5, trial % 2 == 0);
    p.resultRatio = 1.0;
    Protocol protocol;
    for (int w = 0; w < static_cast<int>(p.workers.size()); ++w) protocol.serveOrder.push_back(w);
    std::shuffle(protocol.serveOrder.begin(), protocol.serveOrder.end(), rng);
    protocol.returnOrder = protocol.serveOrder;
    std::shuffle(protocol.returnOrder.begin(), protocol.returnOrder.end(), rng);
    const Protocol mirror{{protocol.returnOrder.rbegin(), protocol.returnOrder.rend()},
                          {protocol.serveOrder.rbegin(), protocol.serveOrder.rend()}};
    auto a = solveProtocol(p, protocol, 1.0), b = solveProtocol(p, mirror, 1.0);
    REQUIRE(a.ok());
    REQUIRE(b.ok());
    for (size_t w = 0; w < p.workers.size(); ++w) CHECK(a->units[w] == doctest::Approx(b->units[w]).epsilon(1e-9));
    // Not a symmetry for delta < 1: the return messages are shorter.
    p.resultRatio = 0.5;
    auto c = solveProtocol(p, protocol, 1.0), d = solveProtocol(p, mirror, 1.0);
    if (p.workers.size() >= 2 && protocol.serveOrder != mirror.serveOrder)
      CHECK(std::fabs(c->work - d->work) > 1e-12 * c->work);
  }
}

TEST_CASE("local search keeps a feasible protocol and never loses work") {
  std::mt19937 rng(22);
  for (int trial = 0; trial < 20; ++trial) {
    WorksharingProblem p = randomWorksharing(rng, 3 + trial % 4, trial % 2 == 0);
    const auto order = byIncreasingLinkTime(p);
    for (const Allocation& start : {fifoAllocation(p, order, 2.0), lifoAllocation(p, order, 2.0)}) {
      for (bool select : {true, false}) {
        const Allocation improved = improveByLocalSearch(p, start, select);
        CHECK(improved.lifespan == 2.0);
        CHECK(improved.work >= start.work * (1 - 1e-12));
        CHECK(smallestShare(improved) >= 0);
        if (!select) CHECK(improved.protocol.serveOrder.size() == p.workers.size());
        // The shares are the protocol's own no-gap solution, not made up.
        auto direct = solveProtocol(p, improved.protocol, 2.0);
        REQUIRE(direct.ok());
        CHECK(direct->work == doctest::Approx(improved.work).epsilon(1e-12));
      }
    }
  }
}

TEST_CASE("best is at least as good as FIFO, LIFO and small-results") {
  std::mt19937 rng(12);
  for (int trial = 0; trial < 10; ++trial) {
    WorksharingProblem p = randomWorksharing(rng, 6, trial % 2 == 0);
    auto best = planWorksharing(p, WorksharingAlgorithm::kBest, true, {1.0, std::nullopt});
    REQUIRE(best.ok());
    for (auto algo : {WorksharingAlgorithm::kFifo, WorksharingAlgorithm::kLifo, WorksharingAlgorithm::kSmallResults}) {
      auto other = planWorksharing(p, algo, true, {1.0, std::nullopt});
      REQUIRE(other.ok());
      CHECK(best->allocation.work >= other->allocation.work * (1 - 1e-12));
    }
    REQUIRE(best->fifoRatio.has_value());
    CHECK(*best->fifoRatio <= 1 + 1e-12);
  }
}

TEST_CASE("Theorem 5: FIFO with every worker does at least tau_min/tau_max of the best") {
  std::mt19937 rng(13);
  for (int trial = 0; trial < 60; ++trial) {
    // Fully heterogeneous clusters (Theorem 5 allows R_i per worker).
    WorksharingProblem p = randomWorksharing(rng, 2 + trial % 4, trial % 3 == 0);
    if (trial % 2) for (auto& w : p.workers) w.linkTime *= 5;
    const double best = bruteForceBestWork(p);
    const double fifo = fifoAllocation(p, byIncreasingLinkTime(p), 1.0).work;
    double tmin = p.workers[0].linkTime, tmax = tmin;
    for (const auto& w : p.workers) tmin = std::min(tmin, w.linkTime), tmax = std::max(tmax, w.linkTime);
    CHECK(fifo >= tmin / tmax * best * (1 - 1e-12));
  }
}

TEST_CASE("best reports FIFO's ratio to it and the Theorem 5 guarantee") {
  WorksharingProblem p{{{0.05, 1.0}, {0.3, 1.0}, {0.9, 1.0}, {1.0, 1.0}}, 0.8};
  auto plan = planWorksharing(p, WorksharingAlgorithm::kBest, true, {1.0, std::nullopt});
  auto fifo = planWorksharing(p, WorksharingAlgorithm::kFifo, true, {1.0, std::nullopt});
  REQUIRE(plan.ok());
  REQUIRE(plan->fifoRatio.has_value());
  CHECK(*plan->fifoRatio == doctest::Approx(fifo->allocation.work / plan->allocation.work));
  CHECK(plan->theorem5Ratio == doctest::Approx(0.05));
  CHECK(*plan->fifoRatio >= plan->theorem5Ratio);
}

TEST_CASE("best stops at the search limit with the best protocol found, not proven optimal") {
  std::mt19937 rng(14);
  WorksharingProblem p = randomWorksharing(rng, 7, false);
  auto best = bestWorksharing(p, true, 1.0, SearchLimits{1000});
  REQUIRE(best.ok());
  CHECK_FALSE(best->provenOptimal);
  CHECK(best->allocation.work > 0);
  CHECK(smallestShare(best->allocation) >= 0);
}

TEST_CASE("best refuses more than eight workers") {
  WorksharingProblem p;
  p.workers.assign(9, Worker{0.1, 1.0});
  auto best = bestWorksharing(p, true, 1.0);
  REQUIRE_FALSE(best.ok());
  CHECK(best.error().message.find("at most 8 workers") != std::string::npos);
}

TEST_CASE("best equals the brute force on more five-worker clusters with large results") {
  // delta = 0.5 and 1 are where return contention makes the node bounds
  // (worksharing_node_bound.h) do most of the pruning.
  std::mt19937 rng(24);
  for (double delta : {0.5, 1.0}) {
    for (int trial = 0; trial < 10; ++trial) {
      WorksharingProblem p = randomWorksharing(rng, 5, trial % 2 == 0);
      p.resultRatio = delta;
      if (trial % 4 >= 2)
        for (auto& w : p.workers) w.linkTime *= 3;  // communication-bound
      auto best = bestWorksharing(p, true, 1.0);
      REQUIRE(best.ok());
      CHECK(best->provenOptimal);
      CHECK(best->allocation.work == doctest::Approx(bruteForceBestWork(p)).epsilon(1e-9));
    }
  }
}
