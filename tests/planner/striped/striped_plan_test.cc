// Striped plans (planner/striped/): every stripe tree spans the
// destinations, connections stay bounded, the chunk-by-chunk replay agrees
// with the prediction, and the prediction is near the Kumar–Ross bound
// where one tree cannot be.
#include <doctest/doctest.h>

#include <random>

#include "planner/pipelined/pipelined_tree.h"
#include "planner/striped/striped_check.h"
#include "planner/striped/striped_plan.h"

using hnow::Result;
using namespace hnow::planner;

namespace {

constexpr double kMiB = 1 << 20;
double mbps(double m) { return m * 1e6 / 8; }

// Node 0 the source, then the agents; every agent a destination.
std::vector<NodeRates> lab(double sourceUp, const std::vector<double>& ups, const std::vector<double>& downs, int agents) {
  std::vector<NodeRates> rates(agents + 1);
  rates[0].uplinkBytesPerSecond = mbps(sourceUp);
  rates[0].downlinkBytesPerSecond = mbps(1000);
  for (int k = 1; k <= agents; ++k) {
    rates[k].uplinkBytesPerSecond = mbps(ups[(k - 1) % ups.size()]);
    rates[k].downlinkBytesPerSecond = mbps(downs[(k - 1) % downs.size()]);
  }
  return rates;
}

double oneTreeSeconds(const std::vector<NodeRates>& rates, double bytes) {
  auto tree = maxBottleneckTree(rates, 0, {});
  REQUIRE(tree);
  auto predicted = predictPipelined(tree.value(), rates, bytes, kMiB);
  REQUIRE(predicted);
  return predicted.value().seconds;
}

// The plan, replayed: valid, the replay within 3% of the prediction.
StripedPlan checkedPlan(const std::vector<NodeRates>& rates, double bytes, const StripedOptions& options = {}) {
  auto plan = planStriped(rates, 0, {}, bytes, kMiB, options);
  REQUIRE_MESSAGE(plan, (plan ? "" : plan.error().message));
  const Result<StripedReplay> replay = replayStriped(plan.value(), rates, {}, bytes, plan.value().chunkBytes);
  CHECK(plan.value().chunkBytes <= kMiB);
  CHECK(plan.value().chunkBytes >= options.minChunkBytes);
  REQUIRE_MESSAGE(replay.ok(), replay.error().message);
  CHECK(replay->makespan == doctest::Approx(plan.value().predictedSeconds).epsilon(0.03));
  CHECK(replay->mostChildren <= options.maxChildren);
  CHECK(replay->sourceChildren <= options.maxSourceChildren);
  CHECK(replay->mostParents <= plan.value().stripes());
  CHECK(plan.value().predictedSeconds >= plan.value().boundSeconds * (1 - 1e-9));
  return plan.value();
}

}  // namespace

TEST_CASE("the uplink-bound lab: striped within 1.10x of the Kumar-Ross bound, where one tree is 1.25x above it") {
  // 8 agents 400/100/50 Mbit/s up, 400 down, hnowd 400 up: (400 + 1600) / 8 = 250 Mbit/s.
  const auto rates = lab(400, {400, 100, 50}, {400}, 8);
  const double bytes = 128 * kMiB;
  const StripedPlan plan = checkedPlan(rates, bytes);
  CHECK(plan.boundSeconds == doctest::Approx(bytes / mbps(250)));
  CHECK(plan.predictedSeconds <= 1.10 * plan.boundSeconds);
  CHECK(oneTreeSeconds(rates, bytes) >= 1.25 * plan.boundSeconds);
  // In 1 MiB chunks the stripes' pipelines fill slowly (a chunk crosses a
  // hop at 50 Mbit/s): 1.13x. The plan takes smaller ones.
  CHECK(plan.chunkBytes < kMiB);
  CHECK(plan.stripes() > 1);
}

TEST_CASE("the volunteer-like lab: striped within 1.10x of the bound, one tree 1.6x above it") {
  // Agents 100/60/40/20 up, 400 down, hnowd 200 up: (200 + 440) / 8 = 80 Mbit/s.
  const auto rates = lab(200, {100, 60, 40, 20}, {400}, 8);
  const double bytes = 256 * kMiB;
  const StripedPlan plan = checkedPlan(rates, bytes);
  CHECK(plan.boundSeconds == doctest::Approx(bytes / mbps(80)));
  CHECK(plan.predictedSeconds <= 1.10 * plan.boundSeconds);
  CHECK(oneTreeSeconds(rates, bytes) >= 1.6 * plan.boundSeconds);
}

TEST_CASE("a downlink-bound lab: the slowest downlink is the limit, and striped reaches it within 1.05x") {
  const auto rates = lab(1000, {400}, {400, 200, 100}, 12);
  const double bytes = 256 * kMiB;
  const StripedPlan plan = checkedPlan(rates, bytes);
  CHECK(plan.boundSeconds == doctest::Approx(bytes / mbps(100)));
  CHECK(plan.rateBytesPerSecond == doctest::Approx(mbps(100)));
  CHECK(plan.predictedSeconds <= 1.05 * plan.boundSeconds);
}

TEST_CASE("when hnowd's uplink is the limit, the bound is F / u_s and striped reaches it") {
  const auto rates = lab(50, {400}, {400}, 6);
  const StripedPlan plan = checkedPlan(rates, 64 * kMiB);
  CHECK(plan.boundSeconds == doctest::Approx(64 * kMiB / mbps(50)));
  CHECK(plan.predictedSeconds <= 1.05 * plan.boundSeconds);
}

TEST_CASE("random labs: valid plans, replays that agree, within 1.10x of the bound for a large file") {
  std::mt19937 rng(20261126);
  std::uniform_real_distribution<double> up(20, 400), down(100, 1000), source(50, 1000);
  std::uniform_int_distribution<int> agents(1, 64);
  double worst = 0.0;
  for (int trial = 0; trial < 150; ++trial) {
    const int n = agents(rng);
    std::vector<NodeRates> rates(n + 1);
    rates[0].uplinkBytesPerSecond = mbps(source(rng));
    for (int k = 1; k <= n; ++k) {
      rates[k].uplinkBytesPerSecond = mbps(up(rng));
      rates[k].downlinkBytesPerSecond = mbps(down(rng));
    }
    CAPTURE(trial);
    CAPTURE(n);
    const StripedPlan plan = checkedPlan(rates, 1024 * kMiB);
    worst = std::max(worst, plan.predictedSeconds / plan.boundSeconds);
    CHECK(plan.predictedSeconds <= 1.10 * plan.boundSeconds);
  }
  MESSAGE("worst predicted / bound over the random labs: " << worst);
}

TEST_CASE("256 agents: at most 32 children an agent, 64 the source, 24 parents per node, every stripe spanning them all") {
  const auto rates = lab(400, {400, 100, 50, 20}, {400, 200}, 256);
  const StripedPlan plan = checkedPlan(rates, 1024 * kMiB);
  CHECK(plan.stripes() <= 24);
  CHECK(plan.predictedSeconds <= 1.10 * plan.boundSeconds);
  for (const BroadcastTree& tree : plan.trees) CHECK(checkTree(tree, 0, {}).ok());
}

TEST_CASE("a file of fewer chunks than stripes has one stripe per chunk at most - one destination is one stripe's worth") {
  const auto rates = lab(400, {100}, {400}, 4);
  const StripedPlan small = checkedPlan(rates, 3 * kMiB);
  CHECK(small.stripes() <= 3);
  const auto one = lab(400, {100}, {400}, 1);
  const StripedPlan single = checkedPlan(one, 64 * kMiB);
  CHECK(single.stripes() == 1);
  CHECK(single.predictedSeconds == doctest::Approx(64 * kMiB / mbps(400)).epsilon(0.02));
  const Result<StripedReplay> replay = replayStriped(single, one, {}, 64 * kMiB, single.chunkBytes / 2);
  REQUIRE_FALSE(replay.ok());  // the stripes then miss the file's last chunks
  CHECK(replay.error().message.find("cover") != std::string::npos);
}

TEST_CASE("striped plans refuse what cannot be planned, with the reason - no destination is an empty plan") {
  auto rates = lab(400, {100}, {400}, 3);
  CHECK_FALSE(planStriped(rates, 7, {}, kMiB, kMiB));
  CHECK_FALSE(planStriped(rates, 0, {}, 0, kMiB));
  CHECK_FALSE(planStriped(rates, 0, {}, kMiB, 0));
  CHECK_FALSE(planStriped(rates, 0, {}, kMiB, kMiB, {0, 32}));
  rates[2].downlinkBytesPerSecond = 0;
  auto noDownlink = planStriped(rates, 0, {}, kMiB, kMiB);
  REQUIRE_FALSE(noDownlink);
  CHECK(noDownlink.error().message.find("destination 2") != std::string::npos);
  rates = lab(0, {100}, {400}, 3);
  CHECK_FALSE(planStriped(rates, 0, {}, kMiB, kMiB));
  const std::vector<int> none{0};
  auto empty = planStriped(rates, 0, none, kMiB, kMiB);
  REQUIRE(empty);
  CHECK(empty.value().stripes() == 0);
}

TEST_CASE("the Kumar-Ross bound: each term where it binds - helpers lower it by what they can pass on") {
  auto rates = lab(400, {400, 100, 50}, {400}, 8);
  const double f = 100 * kMiB;
  CHECK(kumarRossBound(rates, 0, {}, f) == doctest::Approx(f / mbps(250)));
  rates = lab(1000, {400, 100, 50}, {1000}, 8);
  CHECK(kumarRossBound(lab(40, {400}, {400}, 4), 0, {}, f) == doctest::Approx(f / mbps(40)));
  CHECK(kumarRossBound(lab(400, {400}, {400, 30}, 4), 0, {}, f) == doctest::Approx(f / mbps(30)));
  // hnowd 1000 up; agents 1-4 receive; 5-8 are helpers:
  // 4·F / (1000 + 400+100+50+400 + (100+50+400+100)·3/4).
  const std::vector<int> four{1, 2, 3, 4};
  CHECK(kumarRossBound(rates, 0, four, f) == doctest::Approx(4 * f / mbps(1000 + 950)));
  CHECK(kumarRossBound(rates, 0, four, f, true) == doctest::Approx(4 * f / mbps(1000 + 950 + 650 * 0.75)));
  CHECK(kumarRossBound(rates, 0, std::vector<int>{0}, f) == 0.0);
}
