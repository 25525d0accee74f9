#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>

#include "core/manifest/manifest_plan.h"

using namespace hnow::daemon;

namespace {

// The plan, or the test stops with the planner's reason.
ManifestPlan planned(const std::string& algo, const std::vector<TreeNode>& nodes,
                     const std::vector<ManifestItemNodes>& items, std::uint32_t chunk) {
  auto plan = planManifest(algo, nodes, items, chunk);
  REQUIRE_MESSAGE(plan.ok(), (plan.ok() ? "" : plan.error().message));
  return *plan;
}


TreeNode node(const std::string& name, double upMbps, double downMbps) {
  TreeNode n{name, "", {}};
  n.rates.uplinkBytesPerSecond = upMbps * 1e6 / 8;
  n.rates.downlinkBytesPerSecond = downMbps * 1e6 / 8;
  n.rates.sendOverheadSeconds = 1e-4;
  n.rates.receiveOverheadSeconds = 1e-4;
  return n;
}

// Two sources with slow uplinks, four fast receivers: the items are bound
// by their sources, so running them together should beat one after another.
std::vector<TreeNode> lab() {
  return {node("s1", 80, 400), node("s2", 80, 400), node("n1", 200, 400),
          node("n2", 200, 400), node("n3", 200, 400), node("n4", 200, 400)};
}

const std::vector<ManifestItemNodes> kItems{{0, {2, 3, 4, 5}, 64u << 20}, {1, {2, 3, 4, 5}, 64u << 20}};
constexpr std::uint32_t kChunk = 128 * 1024;

// Every destination's parent is the source or another destination, and
// following parents reaches the source.
void checkSpans(const ItemTree& tree, const ManifestItemNodes& item) {
  for (int d : item.destinations) {
    int at = d, steps = 0;
    while (at != item.source && steps++ < 10) {
      const int p = tree.parent[static_cast<std::size_t>(at)];
      REQUIRE((p == item.source || std::count(item.destinations.begin(), item.destinations.end(), p) == 1));
      at = p;
    }
    CHECK(at == item.source);
    CHECK(tree.finish[static_cast<std::size_t>(d)] > 0);
  }
}

}  // namespace

TEST_CASE("auto takes the candidate with the least predicted time of the trees run together") {
  const ManifestPlan plan = planned("auto", lab(), kItems, kChunk);
  double least = 1e300;
  int together = 0;
  for (const PlanOption& o : plan.considered)
    if (o.mode == "pipelined, together") least = std::min(least, o.predictedSeconds), ++together;
  CHECK(together == 13);  // the eleven heuristics, independent and residual
  CHECK(plan.predictedSeconds == least);
  REQUIRE(plan.items.size() == 2);
  for (std::size_t k = 0; k < kItems.size(); ++k) checkSpans(plan.items[k], kItems[k]);
  // Each item alone moves at most at its source's 10 MB/s: 6.7 s; both: about 13.4 s.
  CHECK(plan.sequentialSeconds == doctest::Approx(2 * 64.0 * (1 << 20) / 10e6).epsilon(0.02));
  CHECK(plan.predictedSeconds < plan.sequentialSeconds / 1.5);
  CHECK(plan.lowerBoundSeconds > 0);
}

TEST_CASE("a named heuristic is planned alone, with its store-and-forward makespan beside it") {
  const ManifestPlan plan = planned("ecfp", lab(), kItems, kChunk);
  CHECK(plan.algo == "ecfp");
  REQUIRE(plan.considered.size() == 2);
  CHECK(plan.considered[0].mode == "store-and-forward");
  CHECK(plan.considered[1].predictedSeconds == plan.predictedSeconds);
  for (std::size_t k = 0; k < kItems.size(); ++k) checkSpans(plan.items[k], kItems[k]);
}

TEST_CASE("independent runs each item's own best tree, all at once") {
  const ManifestPlan plan = planned("independent", lab(), kItems, kChunk);
  CHECK(plan.algo == "independent");
  CHECK(plan.considered.size() == 1);
  for (std::size_t k = 0; k < kItems.size(); ++k) checkSpans(plan.items[k], kItems[k]);
}

TEST_CASE("residual plans each item over the capacity the larger items left") {
  // Relays n1..n4 (25 MB/s up) can each feed two at the sources' 10 MB/s:
  // what item 0's relays have left decides where item 1 branches.
  const ManifestPlan plan = planned("residual", lab(), kItems, kChunk);
  CHECK(plan.algo == "residual");
  for (std::size_t k = 0; k < kItems.size(); ++k) checkSpans(plan.items[k], kItems[k]);
  int sourceChildren[2] = {0, 0};
  for (std::size_t k = 0; k < 2; ++k)
    for (int d : kItems[k].destinations) sourceChildren[k] += plan.items[k].parent[static_cast<std::size_t>(d)] == kItems[k].source;
  CHECK(sourceChildren[0] == 1);  // a source at 10 MB/s feeds one child at the bottleneck rate
  CHECK(sourceChildren[1] == 1);
  // Both items at about their sources' rate, together: about one item's time.
  CHECK(plan.predictedSeconds == doctest::Approx(plan.sequentialSeconds / 2).epsilon(0.05));
}

TEST_CASE("a manifest plan refuses unknown algorithms, no items and nodes without rates") {
  CHECK(planManifest("fnf", lab(), kItems, kChunk).error().message == "unknown algo fnf");
  CHECK(planManifest("auto", lab(), {}, kChunk).error().message == "the manifest has no items");
  std::vector<TreeNode> noRates = lab();
  noRates[1].rates.uplinkBytesPerSecond = 0;
  CHECK_FALSE(planManifest("ecf", noRates, kItems, kChunk).ok());
}

TEST_CASE("an item's send tree is over local indices: the source, then its destinations in order") {
  const ManifestPlan plan = planned("ecf", lab(), kItems, kChunk);
  const ManifestItemNodes& item = kItems[1];
  SendTree tree = itemSendTree(plan, item, 1);
  REQUIRE(tree.parent.size() == 5);
  CHECK(tree.parent[0] == -1);
  for (std::size_t i = 0; i < item.destinations.size(); ++i) {
    const int global = plan.items[1].parent[static_cast<std::size_t>(item.destinations[i])];
    const int local = tree.parent[i + 1];
    CHECK(global == (local == 0 ? item.source : item.destinations[static_cast<std::size_t>(local - 1)]));
    CHECK(tree.finish[i + 1] == plan.items[1].finish[static_cast<std::size_t>(item.destinations[i])]);
  }
  CHECK(tree.predictedSeconds == *std::max_element(tree.finish.begin(), tree.finish.end()));
}

TEST_CASE("a relay suspect is a leaf in every manifest item it does not source, and still serves the item it sources") {
  // s1 is a suspect: it sources item 0 and receives item 1; n1 is one too.
  std::vector<TreeNode> nodes = lab();
  nodes[0].relays = false;
  nodes[2].relays = false;
  const std::vector<ManifestItemNodes> items{{0, {2, 3, 4, 5}, 64u << 20}, {1, {0, 2, 3, 4, 5}, 64u << 20}};
  for (const char* algo : {"auto", "fef", "ecf", "wr", "eaf", "rr", "rrs", "ecfp", "wrp", "independent", "residual"}) {
    CAPTURE(algo);
    const ManifestPlan plan = planned(algo, nodes, items, kChunk);
    for (std::size_t k = 0; k < items.size(); ++k) {
      checkSpans(plan.items[k], items[k]);
      for (int v = 0; v < 6; ++v) {
        const int parent = plan.items[k].parent[static_cast<std::size_t>(v)];
        CHECK(parent != 2);
        if (k == 1) CHECK(parent != 0);
      }
    }
    CHECK(std::isfinite(plan.predictedSeconds));
  }
}

TEST_CASE("items across rooms: each item's tree enters the room behind a slow trunk once, predicted with it") {
  // s1 and n1..n3 in room A, n4..n7 in room B behind 100 Mbit/s each way;
  // every port 400. Two items of 32 MiB from s1 to everyone.
  std::vector<TreeNode> nodes{node("s1", 400, 400)};
  for (int k = 1; k <= 7; ++k) nodes.push_back(node("n" + std::to_string(k), 400, 400));
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    nodes[i].site = i <= 3 ? "A" : "B";
    if (i > 3) nodes[i].roomTrunk = {100e6 / 8, 100e6 / 8};
  }
  const std::vector<ManifestItemNodes> items{{0, {1, 2, 3, 4, 5, 6, 7}, 32u << 20},
                                             {0, {1, 2, 3, 4, 5, 6, 7}, 32u << 20}};
  for (const char* algo : {"auto", "independent", "residual", "ecf"}) {
    CAPTURE(algo);
    const ManifestPlan plan = planned(algo, nodes, items, kChunk);
    for (std::size_t k = 0; k < items.size(); ++k) {
      checkSpans(plan.items[k], items[k]);
      int into = 0;
      for (int v = 4; v <= 7; ++v) into += plan.items[k].parent[static_cast<std::size_t>(v)] <= 3 ? 1 : 0;
      CHECK(into == 1);
    }
    // Both items through B's trunk: 64 MiB at 100 Mbit/s at least.
    CHECK(plan.predictedSeconds >= (64 << 20) / (100e6 / 8));
  }
}
