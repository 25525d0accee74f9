#include <doctest/doctest.h>

#include <cmath>
#include <random>
#include <string>

#include "pipelined_brute_force.h"
#include "planner/broadcast/broadcast.h"
#include "planner/broadcast/broadcast_choice.h"
#include "planner/pipelined/pipelined_check.h"
#include "planner/pipelined/pipelined_tree.h"
#include "planner/rate_models.h"
#include "planner/schedule_check.h"

using hnow::Result;
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

TEST_CASE("a chain of equal links takes (depth + chunks - 1) chunk times, predicted and replayed") {
  std::vector<NodeRates> r(4, rates(50, 50));
  const BroadcastTree chain = tree(0, {-1, 0, 1, 2});
  const double chunk = 10, size = 200;  // 20 chunks of 0.2 s
  auto p = predictPipelined(chain, r, size, chunk);
  REQUIRE(p.ok());
  CHECK(p->seconds == doctest::Approx((3 + 20 - 1) * 0.2));
  CHECK(p->depth == 3);
  Result<PipelinedReplay> replay = replayPipelined(chain, r, {}, size, chunk);
  REQUIRE_MESSAGE(replay.ok(), why(replay));
  CHECK(replay->makespan == doctest::Approx(p->seconds));
}

TEST_CASE("children share their parent's uplink, a slow downlink caps its own edge") {
  // Source 90 up feeds three: each gets 30, but node 3 takes only 10.
  std::vector<NodeRates> r{rates(90, 0), rates(0, 100), rates(0, 100), rates(0, 10)};
  const BroadcastTree star = tree(0, {-1, 0, 0, 0});
  auto e = edgeRates(star, r);
  CHECK(e[1] == doctest::Approx(30));
  CHECK(e[3] == doctest::Approx(10));
  CHECK(bottleneckRate(star, r) == doctest::Approx(10));
  // The source reads the file once per child: node 1 is not held back by node 3.
  auto p = predictPipelined(star, r, 300, 30);
  REQUIRE(p.ok());
  CHECK(p->finishSeconds[1] == doctest::Approx(10));
  CHECK(p->finishSeconds[3] == doctest::Approx(30));
}

TEST_CASE("pipelined predictions agree with the chunk-by-chunk replay on random trees") {
  std::mt19937 rng(62);
  int compared = 0;
  for (int round = 0; round < 200; ++round) {
    const int n = std::uniform_int_distribution<int>(2, 10)(rng);
    BroadcastRequest request;
    request.rates = randomRates(rng, n);
    for (auto& x : request.rates) x.downlinkBytesPerSecond += 5;  // nobody is unreachable
    request.source = std::uniform_int_distribution<int>(0, n - 1)(rng);
    request.rates[request.source].uplinkBytesPerSecond = 80;
    request.chunkBytes = 1.0;
    request.fileBytes = std::uniform_int_distribution<int>(200, 400)(rng) + 0.5;  // a partial last chunk
    for (BroadcastAlgorithm algorithm : {BroadcastAlgorithm::kMaxBottleneck, BroadcastAlgorithm::kBinomial,
                                         BroadcastAlgorithm::kChain, BroadcastAlgorithm::kFlat}) {
      auto plan = planBroadcast(request, algorithm);
      REQUIRE_MESSAGE(plan.ok(), why(plan));
      if (!std::isfinite(plan->pipelined.seconds)) continue;  // relays through a node that cannot send
      const int window = 4;
      Result<PipelinedReplay> replay = replayPipelined(plan->tree, request.rates, {}, request.fileBytes,
                                               request.chunkBytes, window);
      REQUIRE_MESSAGE(replay.ok(), why(replay));
      CHECK(replay->slowestEdgeShare == doctest::Approx(plan->pipelined.bottleneckBytesPerSecond));
      // The model paces a relay by its slowest descendant from the first
      // chunk; the replay lets each relay run up to window + 1 chunks ahead
      // of its children. So every node finishes no later than predicted, and
      // at most (window + 1) chunk times at the bottleneck pace per level
      // earlier; the last node, which nothing paces, within 1% (200+ chunks).
      INFO("round " << round << " " << broadcastAlgorithmName(algorithm));
      const double slack = (window + 1) * request.chunkBytes / plan->pipelined.bottleneckBytesPerSecond *
                           plan->pipelined.depth;
      CHECK(replay->makespan <= plan->pipelined.seconds * (1 + 1e-9));
      CHECK(replay->makespan >= plan->pipelined.seconds * 0.99);
      for (int v = 0; v < n; ++v) {
        CHECK(replay->finish[v] <= plan->pipelined.finishSeconds[v] * (1 + 1e-9) + 1e-12);
        CHECK(replay->finish[v] >= plan->pipelined.finishSeconds[v] - slack);
      }
      ++compared;
    }
  }
  CHECK(compared > 400);
}

TEST_CASE("the replay rejects a tree that misses a destination or has an edge without bandwidth") {
  std::vector<NodeRates> r{rates(10, 10), rates(0, 10), rates(10, 10)};
  const std::vector<int> everyone{1, 2};
  Result<PipelinedReplay> missing = replayPipelined(tree(0, {-1, 0, -1}), r, everyone, 10, 1);
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.error().message == "destination 2 is not reached");
  Result<PipelinedReplay> stuck = replayPipelined(tree(0, {-1, 0, 1}), r, everyone, 10, 1);
  REQUIRE_FALSE(stuck.ok());
  CHECK(stuck.error().message == "edge 1 -> 2 has no bandwidth");
  CHECK(replayPipelined(tree(0, {-1, 0, 0}), r, everyone, 10, 1).ok());
  // A cycle hand-made in the children lists is caught before any replay.
  BroadcastTree cyclic = tree(0, {-1, 0, 0});
  cyclic.children[2].push_back(1);
  CHECK_FALSE(replayPipelined(cyclic, r, everyone, 10, 1).ok());
}

TEST_CASE("a cross-site cap and latency apply to edges between sites only") {
  std::vector<NodeRates> r{rates(100, 100), rates(100, 100), rates(100, 100)};
  SiteLinks sites;
  sites.siteOf = siteIndices(std::vector<std::string>{"room-a", "room-a", "room-b"});
  CHECK(sites.siteOf == std::vector<int>{0, 0, 1});
  sites.crossSiteBytesPerSecond = 20;
  sites.crossSiteLatencySeconds = 0.5;
  const BroadcastTree star = tree(0, {-1, 0, 0});
  auto e = edgeRates(star, r, sites);
  CHECK(e[1] == doctest::Approx(50));
  CHECK(e[2] == doctest::Approx(20));
  auto p = predictPipelined(star, r, 100, 10, sites);
  REQUIRE(p.ok());
  CHECK(p->finishSeconds[1] == doctest::Approx(2));
  CHECK(p->finishSeconds[2] == doctest::Approx(0.5 + 5));
  Result<PipelinedReplay> replay = replayPipelined(star, r, {}, 100, 10, 4, sites);
  REQUIRE(replay.ok());
  CHECK(replay->finish[2] == doctest::Approx(p->finishSeconds[2]));
}
