#include <doctest/doctest.h>

#include <random>

#include "pipelined_brute_force.h"
#include "planner/pipelined/concurrent_pipelines.h"
#include "planner/multicast/multicast_check.h"
#include "planner/multicast/multicast_heuristics.h"
#include "planner/multicast/multicast_rates.h"
#include "planner/pipelined/pipelined_tree.h"

using namespace hnow::planner;
using hnow::testing::randomRates;
using hnow::testing::rates;
using hnow::testing::why;

namespace {

BroadcastTree tree(int source, std::vector<int> parent) {
  auto t = treeFromParents(source, std::move(parent));
  REQUIRE_MESSAGE(t.ok(), why(t));
  return std::move(t.value());
}

}  // namespace

TEST_CASE("one item alone is predicted exactly as predictPipelined predicts its tree") {
  std::mt19937 rng(7);
  for (int round = 0; round < 50; ++round) {
    const int n = 2 + static_cast<int>(rng() % 7);
    std::vector<NodeRates> r = randomRates(rng, n);
    for (NodeRates& x : r) x.uplinkBytesPerSecond = std::max(x.uplinkBytesPerSecond, 5.0);  // finite times
    std::vector<int> parent(n, -1);
    for (int v = 1; v < n; ++v) parent[v] = static_cast<int>(rng() % v);  // a random tree rooted at 0
    const BroadcastTree t = tree(0, parent);
    auto alone = predictPipelined(t, r, 5000, 300);
    std::vector<PipelinedItem> items{{t, 5000}};
    auto together = predictConcurrentPipelines(items, r, 300);
    REQUIRE(alone.ok());
    REQUIRE(together.ok());
    CHECK(together->seconds == doctest::Approx(alone->seconds));
    for (int v = 0; v < n; ++v) CHECK(together->finishSeconds[0][v] == doctest::Approx(alone->finishSeconds[v]));
  }
}

TEST_CASE("two items into one node share its downlink, and the shorter one's end frees it for the other") {
  // Sources 0 and 1 (uplink 100) both send to node 2 (downlink 100): 50 each.
  std::vector<NodeRates> r{rates(100, 100), rates(100, 100), rates(100, 100)};
  std::vector<PipelinedItem> items{{tree(0, {-1, -1, 0}), 500}, {tree(1, {-1, -1, 1}), 1000}};
  auto p = predictConcurrentPipelines(items, r, 100);
  REQUIRE_MESSAGE(p.ok(), why(p));
  // First chunks at 100 / 50 = 2 s; item 0's other 400 bytes at 50: 8 s; item 1's
  // other 900: 400 in those 8 s, then 500 alone at 100: 5 s.
  CHECK(p->finishSeconds[0][2] == doctest::Approx(10));
  CHECK(p->finishSeconds[1][2] == doctest::Approx(15));
  CHECK(p->finishSeconds[0][1] == -1);
  CHECK(p->finishSeconds[1][1] == 0);
  CHECK(p->seconds == doctest::Approx(15));
}

TEST_CASE("a relay's uplink is shared by its children of every item") {
  // Node 2 relays item 0 to node 3 and item 1 to node 4: 60 / 2 each.
  std::vector<NodeRates> r{rates(100, 100), rates(100, 100), rates(60, 100), rates(100, 100), rates(100, 100)};
  std::vector<PipelinedItem> items{{tree(0, {-1, -1, 0, 2, -1}), 300}, {tree(1, {-1, -1, 1, -1, 2}), 300}};
  auto p = predictConcurrentPipelines(items, r, 300);
  REQUIRE(p.ok());
  // Node 2's downlink is shared too (50 each); one chunk per item: 300/50 + 300/30.
  CHECK(p->finishSeconds[0][2] == doctest::Approx(6));
  CHECK(p->finishSeconds[0][3] == doctest::Approx(16));
  CHECK(p->finishSeconds[1][4] == doctest::Approx(16));
}

TEST_CASE("an edge without rate gives an infinite time, and bad input an error value") {
  std::vector<NodeRates> r{rates(0, 100), rates(100, 100)};
  std::vector<PipelinedItem> items{{tree(0, {-1, 0}), 1000}};
  auto p = predictConcurrentPipelines(items, r, 100);
  REQUIRE(p.ok());
  CHECK(std::isinf(p->seconds));
  CHECK(!predictConcurrentPipelines(items, r, 0).ok());
  std::vector<PipelinedItem> wrongSize{{tree(0, {-1, 0, 0}), 10}};
  CHECK(!predictConcurrentPipelines(wrongSize, r, 100).ok());
}

TEST_CASE("multicastFromRates charges the sender's uplink to the send and the rest to the link") {
  std::vector<NodeRates> r{rates(100, 100, 0.5, 0.25), rates(50, 200), rates(100, 25)};
  auto instance = multicastFromRates(r, {{0, 1000, {1, 2}}});
  REQUIRE_MESSAGE(instance.ok(), why(instance));
  CHECK(instance->sendTime(0, 0) == doctest::Approx(0.5 + 10));
  CHECK(instance->recvTime(1, 0) == doctest::Approx(1e-6));  // unmeasured: the least overhead
  CHECK(instance->wireTime(0, 1, 0) == doctest::Approx(0));         // downlink 200 >= uplink 100
  CHECK(instance->wireTime(0, 2, 0) == doctest::Approx(1000.0 / 25 - 10));  // end to end m / 25
  auto noUplink = multicastFromRates(std::vector<NodeRates>{rates(0, 100), rates(10, 10)}, {{0, 10, {1}}});
  REQUIRE(!noUplink.ok());
  CHECK(noUplink.error().message == "node 0 has no measured uplink");
}

TEST_CASE("the trees of a multicast plan give each destination the sender of its transfer") {
  std::vector<NodeRates> r{rates(100, 100, 0.01, 0.02), rates(40, 100, 0.01, 0.01), rates(120, 50, 0.02, 0.01),
                           rates(25, 30, 0.01, 0.01),   rates(10, 100, 0.01, 0.01), rates(100, 10, 0.01, 0.01)};
  auto instance = multicastFromRates(r, {{0, 4000, {2, 3, 4, 5}}, {1, 2000, {2, 4, 5}}});
  REQUIRE(instance.ok());
  for (bool preemptive : {false, true}) {
    auto plan = planMulticast(*instance, MulticastAlgorithm::kEarliestCompletionFirst, {preemptive, 1});
    REQUIRE(plan.ok());
    CHECK(checkMulticastPlan(*instance, *plan).ok());
    auto trees = treesOfMulticastPlan(*instance, *plan);
    REQUIRE(trees.size() == 2);
    for (const MulticastTransfer& x : plan->transfers) CHECK(trees[x.message].parent[x.to] == x.from);
    CHECK(trees[0].parent[1] == -1);
    CHECK(trees[1].parent[3] == -1);
    CHECK(trees[1].source == 1);
  }
}
