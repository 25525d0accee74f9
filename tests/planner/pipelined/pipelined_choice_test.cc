#include <doctest/doctest.h>

#include <cmath>
#include <random>

#include "pipelined_brute_force.h"
#include "planner/broadcast/broadcast.h"
#include "planner/broadcast/broadcast_choice.h"
#include "planner/broadcast/broadcast_search.h"
#include "planner/rate_models.h"
#include "planner/schedule_check.h"
#include "planner/clusters/two_level_lcf.h"

using hnow::Result;
using namespace hnow::planner;
using hnow::testing::randomRates;
using hnow::testing::rates;
using hnow::testing::why;

namespace {

// The demo's lab: a source and 8 agents of three classes, uplinks
// of 400, 100 and 25 Mbit/s, the classes in different rooms; downlinks not
// shaped (the switch gives everyone 400 Mbit/s). With downlinks as slow as
// the uplinks every tree would be held to the slowest downlink.
BroadcastRequest threeClassLab(double fileBytes) {
  const double mbit = 1e6 / 8;
  BroadcastRequest request;
  const double classes[] = {400 * mbit, 100 * mbit, 25 * mbit};
  const int classOf[] = {0, 0, 0, 1, 1, 1, 2, 2, 2};
  for (int c : classOf) {
    request.rates.push_back(rates(classes[c], 400 * mbit, 2e-4, 1e-4));
    request.sites.siteOf.push_back(c);
  }
  request.fileBytes = fileBytes;
  request.chunkBytes = 1 << 20;
  return request;
}

void checkEveryPredictionAboveTheBound(const BroadcastChoice& choice) {
  const double bound = choice.fluidLowerBound;
  std::vector<const BroadcastPlan*> plans{&choice.storeAndForward, &choice.pipelined};
  for (const BroadcastPlan& p : choice.baselines) plans.push_back(&p);
  for (const BroadcastPlan* p : plans) {
    INFO(broadcastAlgorithmName(p->algorithm));
    CHECK(bound <= p->pipelined.seconds * (1 + 1e-12));
    CHECK(bound <= p->storeAndForward.seconds * (1 + 1e-12));
  }
}

}  // namespace

TEST_CASE("seed 000's send time from rates is S_c + m / uplink, infinite without uplink") {
  std::vector<NodeRates> r{rates(100, 1, 0.5), rates(0, 1, 0.5)};
  auto t = senderDeterminedSendTimes(r, 200);
  CHECK(t[0] == doctest::Approx(2.5));
  CHECK(std::isinf(t[1]));
}

TEST_CASE("the store-and-forward prediction replays seed 000's times for its schedules") {
  // With no receive overhead and downlinks no slower than any uplink, each
  // send p -> c lasts exactly t(p), as in the seed's model.
  std::mt19937 rng(63);
  for (int round = 0; round < 100; ++round) {
    const int n = std::uniform_int_distribution<int>(1, 8)(rng);
    BroadcastRequest request;
    request.rates = randomRates(rng, n);
    for (auto& x : request.rates) {
      x.downlinkBytesPerSecond = 1000;
      x.receiveOverheadSeconds = 0;
      x.uplinkBytesPerSecond += 5;
    }
    request.source = std::uniform_int_distribution<int>(0, n - 1)(rng);
    request.fileBytes = std::uniform_real_distribution<double>(0, 100)(rng);
    const std::vector<double> t = senderDeterminedSendTimes(request.rates, request.fileBytes);
    struct Case {
      BroadcastAlgorithm algorithm;
      Schedule schedule;
    } cases[] = {{BroadcastAlgorithm::kFnf, fastestNodeFirst(t, request.source)},
                 {BroadcastAlgorithm::kOptimal, optimalBroadcast(t, request.source).schedule},
                 {BroadcastAlgorithm::kBinomial, binomialBroadcast(t, request.source)},
                 {BroadcastAlgorithm::kChain, chainBroadcast(t, request.source)},
                 {BroadcastAlgorithm::kFlat, flatBroadcast(t, request.source)}};
    for (const Case& c : cases) {
      INFO("round " << round << " " << broadcastAlgorithmName(c.algorithm));
      Result<double> makespan = checkBroadcast(t, request.source, c.schedule);
      REQUIRE_MESSAGE(makespan.ok(), why(makespan));
      auto plan = planBroadcast(request, c.algorithm, TransferMode::kStoreAndForward);
      REQUIRE_MESSAGE(plan.ok(), why(plan));
      CHECK(plan->predictedSeconds() == doctest::Approx(*makespan));
      for (const Transfer& x : c.schedule) CHECK(plan->tree.parent[x.to] == x.from);
    }
  }
}

TEST_CASE("a schedule's tree keeps its sending order: MPICH's binomial tree over 8 nodes") {
  std::vector<double> t(8, 1.0);
  auto tree = treeFromSchedule(binomialBroadcast(t, 0), 0, 8);
  REQUIRE_MESSAGE(tree.ok(), why(tree));
  CHECK(tree->children[0] == std::vector<int>{4, 2, 1});
  CHECK(tree->children[4] == std::vector<int>{6, 5});
  CHECK(tree->children[2] == std::vector<int>{3});
  CHECK(tree->children[6] == std::vector<int>{7});
  CHECK(tree->depth() == 3);
}

TEST_CASE("site labels give seed 001's instance: the source's site first, fastest first inside a site") {
  std::vector<NodeRates> r{rates(10, 100), rates(40, 100), rates(20, 100), rates(30, 100), rates(50, 100)};
  SiteLinks sites;
  sites.siteOf = {1, 0, 1, 0, 0};
  sites.crossSiteBytesPerSecond = 5;
  auto participants = participantsOf(5, 2, {});
  REQUIRE(participants.ok());
  auto model = twoLevelFromRates(r, *participants, sites, 100);
  REQUIRE_MESSAGE(model.ok(), why(model));
  CHECK(model->instance.sizes == std::vector<int>{2, 3});
  CHECK(model->nodeOfLayout == std::vector<int>{2, 0, 4, 1, 3});
  // Local: the median of 100 / uplink; across: the median of 100 / min(uplink, 5) = 20.
  CHECK(model->instance.localTime == doctest::Approx(100.0 / 30));
  CHECK(model->instance.globalTime == doctest::Approx(20));
}

TEST_CASE("auto plans LCF across sites, and its tree reaches every destination") {
  BroadcastRequest request = threeClassLab(1 << 10);
  const std::vector<int> some{1, 4, 7, 8};
  request.destinations = some;
  auto choice = chooseBroadcastPlan(request);
  REQUIRE_MESSAGE(choice.ok(), why(choice));
  CHECK(choice->storeAndForward.algorithm == BroadcastAlgorithm::kLcf);
  CHECK(checkTree(choice->storeAndForward.tree, 0, some).ok());
  for (int v : {2, 3, 5, 6}) CHECK_FALSE(choice->storeAndForward.tree.contains(v));  // no relays in the seeds
  request.sites.siteOf.clear();
  auto noSites = chooseBroadcastPlan(request);
  REQUIRE(noSites.ok());
  CHECK(noSites->storeAndForward.algorithm == BroadcastAlgorithm::kFnf);
}

TEST_CASE("auto picks store-and-forward for a tiny message and the pipelined tree for a large file") {
  // 100 bytes: the send overheads dominate, and a wide pipelined tree pays
  // one per child before any child can relay.
  auto tiny = chooseBroadcastPlan(threeClassLab(100));
  REQUIRE_MESSAGE(tiny.ok(), why(tiny));
  CHECK(tiny->chosen.mode == TransferMode::kStoreAndForward);
  CHECK(tiny->chosen.algorithm == BroadcastAlgorithm::kLcf);
  CHECK(tiny->chosen.predictedSeconds() < tiny->pipelined.predictedSeconds());

  auto large = chooseBroadcastPlan(threeClassLab(double(1 << 30)));
  REQUIRE_MESSAGE(large.ok(), why(large));
  CHECK(large->chosen.mode == TransferMode::kPipelined);
  CHECK(large->chosen.algorithm == BroadcastAlgorithm::kMaxBottleneck);
  CHECK(large->chosen.predictedSeconds() < large->storeAndForward.predictedSeconds());
  // The max-bottleneck tree also beats the baselines' trees run pipelined.
  for (const BroadcastPlan& b : large->baselines) {
    INFO(broadcastAlgorithmName(b.algorithm));
    CHECK(b.mode == TransferMode::kPipelined);
    CHECK(large->chosen.predictedSeconds() < b.predictedSeconds());
  }
  checkEveryPredictionAboveTheBound(*tiny);
  checkEveryPredictionAboveTheBound(*large);
}

TEST_CASE("auto takes the faster of its two candidates, and no prediction is below the fluid bound") {
  std::mt19937 rng(64);
  for (int round = 0; round < 150; ++round) {
    const int n = std::uniform_int_distribution<int>(1, 12)(rng);
    BroadcastRequest request;
    request.rates = randomRates(rng, n);
    for (auto& x : request.rates) x.downlinkBytesPerSecond += 1;
    request.source = std::uniform_int_distribution<int>(0, n - 1)(rng);
    request.rates[request.source].uplinkBytesPerSecond = 70;
    for (int v = 0; v < n; ++v)
      if (v != request.source && std::bernoulli_distribution(0.6)(rng)) request.destinations.push_back(v);
    if (std::bernoulli_distribution(0.5)(rng)) {
      std::uniform_int_distribution<int> site(0, 2);
      for (int v = 0; v < n; ++v) request.sites.siteOf.push_back(site(rng));
    }
    request.fileBytes = std::pow(10.0, std::uniform_real_distribution<double>(0, 5)(rng));
    request.chunkBytes = std::pow(10.0, std::uniform_real_distribution<double>(0, 3)(rng));
    request.tree.allowRelays = std::bernoulli_distribution(0.5)(rng);
    auto choice = chooseBroadcastPlan(request);
    INFO("round " << round);
    REQUIRE_MESSAGE(choice.ok(), why(choice));
    const double best = std::min(choice->storeAndForward.predictedSeconds(), choice->pipelined.predictedSeconds());
    CHECK(choice->chosen.predictedSeconds() == best);
    CHECK(choice->baselines.size() == 3);
    checkEveryPredictionAboveTheBound(*choice);
  }
}

TEST_CASE("auto on degenerate clusters gives values") {
  SUBCASE("a lone source: nothing to send") {
    BroadcastRequest request;
    request.rates = {rates(10, 10)};
    request.fileBytes = 1e6;
    auto choice = chooseBroadcastPlan(request);
    REQUIRE_MESSAGE(choice.ok(), why(choice));
    CHECK(choice->chosen.predictedSeconds() == 0.0);
    CHECK(choice->fluidLowerBound == 0.0);
  }
  SUBCASE("a zero-byte file with no overheads takes no time") {
    BroadcastRequest request;
    request.rates = {rates(10, 10), rates(10, 10), rates(10, 10)};
    request.fileBytes = 0;
    auto choice = chooseBroadcastPlan(request);
    REQUIRE_MESSAGE(choice.ok(), why(choice));
    CHECK(choice->storeAndForward.predictedSeconds() == 0.0);
    CHECK(choice->pipelined.predictedSeconds() == 0.0);
  }
  SUBCASE("a node that cannot send: FNF and the pipelined tree avoid it, the chain hands its next node to the source") {
    BroadcastRequest request;
    request.rates = {rates(10, 10), rates(0, 10), rates(10, 10)};
    request.fileBytes = 100;
    auto choice = chooseBroadcastPlan(request);
    REQUIRE_MESSAGE(choice.ok(), why(choice));
    CHECK(std::isfinite(choice->storeAndForward.predictedSeconds()));
    CHECK(std::isfinite(choice->pipelined.predictedSeconds()));
    const BroadcastPlan& chain = choice->baselines[1];
    CHECK(chain.algorithm == BroadcastAlgorithm::kChain);
    CHECK(chain.tree.parent == std::vector<int>{-1, 0, 0});
    CHECK(std::isfinite(chain.pipelined.seconds));
    CHECK(std::isfinite(chain.storeAndForward.seconds));
  }
  SUBCASE("a source that cannot send is an error value") {
    BroadcastRequest request;
    request.rates = {rates(0, 10), rates(10, 10)};
    request.fileBytes = 100;
    CHECK_FALSE(chooseBroadcastPlan(request).ok());
  }
}

TEST_CASE("algorithm names round-trip") {
  for (auto a : {BroadcastAlgorithm::kFnf, BroadcastAlgorithm::kOptimal, BroadcastAlgorithm::kLcf,
                 BroadcastAlgorithm::kBinomial, BroadcastAlgorithm::kChain, BroadcastAlgorithm::kFlat,
                 BroadcastAlgorithm::kMaxBottleneck})
    CHECK(broadcastAlgorithmFromName(broadcastAlgorithmName(a)) == a);
  CHECK_FALSE(broadcastAlgorithmFromName("auto").has_value());
}

TEST_CASE("a node with no uplink relays nothing in any algorithm's tree, the others still reach everyone, and predictions stay finite") {
  // Nodes 1 and 4 cannot send: binomial, chain and LCF place nodes by
  // position and would give them children; FNF, optimal and the pipelined
  // tree avoid them by their rates.
  BroadcastRequest request = threeClassLab(64 << 20);
  for (int v : {1, 4}) request.rates[static_cast<std::size_t>(v)].uplinkBytesPerSecond = 0.0;
  for (BroadcastAlgorithm algorithm :
       {BroadcastAlgorithm::kFnf, BroadcastAlgorithm::kOptimal, BroadcastAlgorithm::kLcf, BroadcastAlgorithm::kBinomial,
        BroadcastAlgorithm::kChain, BroadcastAlgorithm::kFlat, BroadcastAlgorithm::kMaxBottleneck}) {
    CAPTURE(broadcastAlgorithmName(algorithm));
    auto plan = planBroadcast(request, algorithm);
    REQUIRE(plan);
    CHECK(checkTree(plan->tree, 0, {}).ok());
    for (int v : {1, 4}) CHECK(plan->tree.children[static_cast<std::size_t>(v)].empty());
    CHECK(std::isfinite(plan->pipelined.seconds));
    CHECK(std::isfinite(plan->storeAndForward.seconds));
  }
  auto choice = chooseBroadcastPlan(request);
  REQUIRE(choice);
  for (int v : {1, 4}) CHECK(choice->chosen.tree.children[static_cast<std::size_t>(v)].empty());
}

TEST_CASE("a node that may not relay hands its children to its nearest ancestor that may, after that ancestor's own") {
  // 0 -> 1 -> 2 -> 3, and 1 -> 4: without 1 and 2 relaying, 0 feeds 1, then 2 and 4, then 3.
  auto tree = treeFromParents(0, {-1, 0, 1, 2, 1});
  REQUIRE(tree);
  const BroadcastTree hung = hangOffNonRelays(*tree, {true, false, false, true, true});
  CHECK(hung.parent == std::vector<int>{-1, 0, 0, 0, 0});
  CHECK(hung.children[0] == std::vector<int>{1, 2, 4, 3});
  CHECK(checkTree(hung, 0, {}).ok());
  // Every node relays: the same tree.
  CHECK(hangOffNonRelays(*tree, std::vector<bool>(5, true)).parent == tree->parent);
}
