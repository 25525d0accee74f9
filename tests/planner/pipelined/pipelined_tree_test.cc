#include <doctest/doctest.h>

#include <cmath>
#include <random>

#include "pipelined_brute_force.h"
#include "planner/pipelined/pipelined_tree.h"

using namespace hnow::planner;
using hnow::testing::BruteTree;
using hnow::testing::forEachTree;
using hnow::testing::randomRates;
using hnow::testing::why;

namespace {

NodeRates rates(double up, double down) {
  NodeRates r;
  r.uplinkBytesPerSecond = up;
  r.downlinkBytesPerSecond = down;
  return r;
}

bool sameRate(double a, double b) { return std::abs(a - b) <= 1e-9 * std::max(std::abs(a), std::abs(b)); }

// A random tiny instance: source, destinations (all, or a random subset).
struct Tiny {
  std::vector<NodeRates> rates;
  int source = 0;
  std::vector<int> destinations;
  std::vector<bool> isDestination;
};

Tiny randomTiny(std::mt19937& rng) {
  Tiny t;
  const int n = std::uniform_int_distribution<int>(1, 6)(rng);
  t.rates = randomRates(rng, n);
  t.source = std::uniform_int_distribution<int>(0, n - 1)(rng);
  if (t.rates[t.source].uplinkBytesPerSecond == 0) t.rates[t.source].uplinkBytesPerSecond = 60;
  t.isDestination.assign(n, false);
  const bool subset = std::bernoulli_distribution(0.5)(rng);
  for (int v = 0; v < n; ++v)
    if (v != t.source && (!subset || std::bernoulli_distribution(0.5)(rng))) {
      t.destinations.push_back(v);
      t.isDestination[v] = true;
    }
  // An empty list means "everyone": keep the subset non-empty when chosen.
  if (subset && t.destinations.empty() && n > 1) {
    const int v = (t.source + 1) % n;
    t.destinations.push_back(v);
    t.isDestination[v] = true;
  }
  return t;
}

}  // namespace

TEST_CASE("the max-bottleneck tree matches brute force on the bottleneck, then the depth (n <= 6)") {
  std::mt19937 rng(6);
  int withRelaysUsed = 0;
  for (int round = 0; round < 300; ++round) {
    const Tiny t = randomTiny(rng);
    const bool allowRelays = round % 3 != 0;
    double bestRate = 0.0;
    std::vector<BruteTree> all;
    forEachTree(t.rates, t.source, t.isDestination, allowRelays, [&](const BruteTree& b) {
      bestRate = std::max(bestRate, b.bottleneck);
      all.push_back(b);
    });
    int bestDepth = 1 << 20;
    for (const BruteTree& b : all)
      if (sameRate(b.bottleneck, bestRate)) bestDepth = std::min(bestDepth, b.depth);

    auto tree = maxBottleneckTree(t.rates, t.source, t.destinations, {allowRelays});
    REQUIRE_MESSAGE(tree.ok(), why(tree));
    CHECK(checkTree(*tree, t.source, t.destinations).ok());
    INFO("round " << round << " n " << t.rates.size());
    CHECK(sameRate(bottleneckRate(*tree, t.rates), bestRate));
    CHECK(tree->depth() == bestDepth);
    for (int v = 0; v < tree->nodeCount(); ++v) {
      if (v == t.source || t.isDestination[v] || !tree->contains(v)) continue;
      CHECK(allowRelays);
      CHECK_FALSE(tree->children[v].empty());  // no relay leaves
      ++withRelaysUsed;
    }
  }
  CHECK(withRelaysUsed > 0);  // the instances exercise relays
}

TEST_CASE("a fast non-destination relay lifts the bottleneck when relays are allowed") {
  // The source can feed one node at 100; three destinations that cannot send;
  // a relay with a wide uplink feeds them all at 100.
  std::vector<NodeRates> r{rates(100, 100), rates(0, 100), rates(0, 100), rates(0, 100), rates(300, 100)};
  const std::vector<int> destinations{1, 2, 3};
  auto with = maxBottleneckTree(r, 0, destinations, {true});
  auto without = maxBottleneckTree(r, 0, destinations, {false});
  REQUIRE(with.ok());
  REQUIRE(without.ok());
  CHECK(bottleneckRate(*with, r) == doctest::Approx(100));
  CHECK(with->parent[4] == 0);
  CHECK(with->depth() == 2);
  CHECK(bottleneckRate(*without, r) == doctest::Approx(100.0 / 3));
  CHECK_FALSE(without->contains(4));
  CHECK(without->depth() == 1);
}

TEST_CASE("fast uplinks get more children: a wide node sits near the source") {
  // Source 100 up; node 1 can feed four at 100; nodes 2..5 feed nobody.
  std::vector<NodeRates> r{rates(100, 100), rates(400, 100), rates(0, 100), rates(0, 100), rates(0, 100),
                           rates(0, 100)};
  auto tree = maxBottleneckTree(r, 0, {});
  REQUIRE(tree.ok());
  CHECK(bottleneckRate(*tree, r) == doctest::Approx(100));
  CHECK(tree->children[0] == std::vector<int>{1});
  CHECK(tree->children[1].size() == 4);
}

TEST_CASE("degenerate clusters are values, not crashes") {
  SUBCASE("one node: an empty tree, zero time, zero bound") {
    std::vector<NodeRates> r{rates(10, 10)};
    auto tree = maxBottleneckTree(r, 0, {});
    REQUIRE(tree.ok());
    CHECK(tree->depth() == 0);
    auto p = predictPipelined(*tree, r, 1e9, 1e6);
    REQUIRE(p.ok());
    CHECK(p->seconds == 0.0);
    CHECK(p->bottleneckBytesPerSecond == 0.0);
    CHECK(fluidLowerBound(r, 0, {}, 1e9) == 0.0);
  }
  SUBCASE("a zero-byte file costs only the hop overheads") {
    std::vector<NodeRates> r{rates(10, 10), rates(10, 10), rates(10, 10)};
    for (auto& x : r) x.receiveOverheadSeconds = 0.25;
    auto tree = maxBottleneckTree(r, 0, {});
    REQUIRE(tree.ok());
    auto p = predictPipelined(*tree, r, 0.0, 1e6);
    REQUIRE(p.ok());
    CHECK(p->seconds == doctest::Approx(0.25 * tree->depth()));
    CHECK(fluidLowerBound(r, 0, {}, 0.0) == 0.0);
  }
  SUBCASE("a destination that cannot send is a leaf") {
    std::vector<NodeRates> r{rates(20, 10), rates(0, 10), rates(20, 10)};
    auto tree = maxBottleneckTree(r, 0, {});
    REQUIRE(tree.ok());
    CHECK(tree->children[1].empty());
    CHECK(bottleneckRate(*tree, r) == doctest::Approx(10));
  }
  SUBCASE("a source that cannot send, or a destination that cannot receive, is an error value") {
    std::vector<NodeRates> r{rates(0, 10), rates(10, 10)};
    CHECK_FALSE(maxBottleneckTree(r, 0, {}).ok());
    std::vector<NodeRates> r2{rates(10, 10), rates(10, 0)};
    CHECK_FALSE(maxBottleneckTree(r2, 0, {}).ok());
    CHECK(fluidLowerBound(r2, 0, {}, 1.0) == std::numeric_limits<double>::infinity());
  }
  SUBCASE("an edge from a node with no uplink predicts an infinite time") {
    std::vector<NodeRates> r{rates(10, 10), rates(0, 10), rates(10, 10)};
    auto tree = treeFromParents(0, {-1, 0, 1});
    REQUIRE(tree.ok());
    auto p = predictPipelined(*tree, r, 100, 10);
    REQUIRE(p.ok());
    CHECK(std::isinf(p->seconds));
  }
  SUBCASE("bad indices are errors") {
    std::vector<NodeRates> r{rates(10, 10), rates(10, 10)};
    CHECK_FALSE(maxBottleneckTree(r, 2, {}).ok());
    const std::vector<int> bad{5};
    CHECK_FALSE(maxBottleneckTree(r, 0, bad).ok());
  }
}

TEST_CASE("the fluid lower bound is never above any tree's pipelined prediction (n <= 6, all trees)") {
  std::mt19937 rng(61);
  int trees = 0;
  for (int round = 0; round < 150; ++round) {
    const Tiny t = randomTiny(rng);
    const double size = std::uniform_real_distribution<double>(1, 1e4)(rng);
    const double chunk = std::uniform_real_distribution<double>(1, 2e3)(rng);
    const double bound = fluidLowerBound(t.rates, t.source, t.destinations, size);
    forEachTree(t.rates, t.source, t.isDestination, true, [&](const BruteTree& b) {
      auto tree = treeFromParents(t.source, b.parent);
      REQUIRE(tree.ok());
      auto p = predictPipelined(*tree, t.rates, size, chunk);
      REQUIRE(p.ok());
      ++trees;
      if (!(bound <= p->seconds * (1 + 1e-12))) {
        FAIL_CHECK("bound " << bound << " above prediction " << p->seconds << " in round " << round);
      }
    });
  }
  CHECK(trees > 1000);
}

TEST_CASE("without relays the fluid bound is the formula") {
  std::vector<NodeRates> r{rates(40, 100), rates(10, 20), rates(30, 50), rates(5, 100)};
  const double size = 1000;
  const double expected = std::max(size / 20, 3 * size / (40 + 10 + 30 + 5));
  CHECK(fluidLowerBound(r, 0, {}, size) == doctest::Approx(expected));
  // A relay with a wide uplink raises the rate the bound allows.
  const std::vector<int> two{1, 2};
  CHECK(fluidLowerBound(r, 0, two, size, {false}) == doctest::Approx(std::max(size / 20, 2 * size / 80)));
  CHECK(fluidLowerBound(r, 0, two, size, {true}) <= fluidLowerBound(r, 0, two, size, {false}));
}
