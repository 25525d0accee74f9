// Trees that cross slow trunks fewer times at the same predicted time
// (planner/pipelined/trunk_crossings.h): a room fed from a relay that costs
// no extra copy, never slower than the slack allows, always a valid tree.
#include <doctest/doctest.h>

#include <random>

#include "planner/broadcast/broadcast_choice.h"
#include "planner/pipelined/pipelined_tree.h"
#include "planner/pipelined/trunk_crossings.h"

using namespace hnow::planner;

namespace {

constexpr double kMiB = 1 << 20;
double mbps(double m) { return m * 1e6 / 8; }

struct Lab {
  std::vector<NodeRates> rates;
  SiteLinks sites;
};

// A -100- B -50- C (the core at B, unlimited), hnowd (400 up) in A;
// nodes 1-3 in A, 4-6 in B, 7-8 in C; uplinks 400, 200, 100 round robin.
Lab lineOfRooms() {
  Lab lab;
  const int room[] = {0, 0, 0, 0, 1, 1, 1, 2, 2};
  const double up[] = {400, 400, 200, 100, 400, 200, 100, 400, 200};
  for (int v = 0; v < 9; ++v) {
    NodeRates r;
    r.uplinkBytesPerSecond = mbps(up[v]);
    r.downlinkBytesPerSecond = mbps(400);
    lab.rates.push_back(r);
    lab.sites.siteOf.push_back(room[v]);
  }
  lab.sites.trunks = {{mbps(100), mbps(100)}, {0, 0}, {mbps(50), mbps(50)}};
  return lab;
}

int edgesOutOf(const BroadcastTree& tree, const SiteLinks& sites, int site) {
  int count = 0;
  for (int v = 0; v < tree.nodeCount(); ++v)
    if (tree.parent[v] >= 0 && sites.siteOf[tree.parent[v]] == site && sites.siteOf[v] != site) ++count;
  return count;
}

double predicted(const BroadcastTree& tree, const Lab& lab, double bytes) {
  auto p = predictPipelined(tree, lab.rates, bytes, kMiB, lab.sites);
  REQUIRE_MESSAGE(p, (p ? "" : p.error().message));
  return p.value().seconds;
}

}  // namespace

TEST_CASE("a line of rooms fed both from hnowd's room: the middle room takes over the far room, at the same time") {
  const Lab lab = lineOfRooms();
  // hnowd feeds A's nodes, B's entry 4 and C's entry 7; each room relays inside.
  auto tree = treeFromParents(0, {-1, 0, 0, 0, 0, 4, 4, 0, 7});
  REQUIRE(tree);
  CHECK(trunkCrossings(tree.value(), lab.sites) == 3);  // A out twice, C in once
  const double bytes = 128 * kMiB;
  const BroadcastTree better = fewerTrunkCrossings(tree.value(), lab.rates, bytes, kMiB, lab.sites);
  CHECK(checkTree(better, 0, {}).ok());
  CHECK(trunkCrossings(better, lab.sites) == 2);
  CHECK(edgesOutOf(better, lab.sites, 0) == 1);
  CHECK(lab.sites.siteOf[better.parent[7]] == 1);
  CHECK(predicted(better, lab, bytes) <= predicted(tree.value(), lab, bytes) * 1.01);
}

TEST_CASE("no move that would cost more than the slack: a far room stays where the relay is too slow") {
  Lab lab = lineOfRooms();
  // B's nodes can barely send: hnowd feeds each, and feeding C or another
  // of B's nodes through them would take far longer than A's trunk does.
  for (int v : {4, 5, 6}) lab.rates[v].uplinkBytesPerSecond = mbps(5);
  auto tree = treeFromParents(0, {-1, 0, 0, 0, 0, 0, 0, 0, 7});
  REQUIRE(tree);
  const double bytes = 64 * kMiB;
  const BroadcastTree same = fewerTrunkCrossings(tree.value(), lab.rates, bytes, kMiB, lab.sites);
  CHECK(same.parent == tree.value().parent);
}

TEST_CASE("without trunk limits, or with rooms and no limits, the tree is left as it is") {
  Lab lab = lineOfRooms();
  auto tree = treeFromParents(0, {-1, 0, 0, 0, 0, 4, 4, 0, 7});
  REQUIRE(tree);
  lab.sites.trunks.clear();
  CHECK(fewerTrunkCrossings(tree.value(), lab.rates, 64 * kMiB, kMiB, lab.sites).parent == tree.value().parent);
  CHECK(trunkCrossings(tree.value(), lab.sites) == 0);
}

TEST_CASE("a node that may not send never becomes a parent") {
  Lab lab = lineOfRooms();
  for (int v : {4, 5, 6}) lab.rates[v].uplinkBytesPerSecond = 0.0;
  auto tree = treeFromParents(0, {-1, 0, 0, 0, 0, 0, 0, 0, 7});
  REQUIRE(tree);
  const BroadcastTree out = fewerTrunkCrossings(tree.value(), lab.rates, 64 * kMiB, kMiB, lab.sites);
  for (int v : {4, 5, 6}) CHECK(out.children[v].empty());
}

TEST_CASE("planBroadcast: LCF over the line of rooms leaves hnowd's room once, the chain baseline is left as Kascade runs it") {
  const Lab lab = lineOfRooms();
  BroadcastRequest request;
  request.rates = lab.rates;
  request.sites = lab.sites;
  request.fileBytes = 128 * kMiB;
  request.chunkBytes = kMiB;
  auto lcf = planBroadcast(request, BroadcastAlgorithm::kLcf, TransferMode::kPipelined);
  REQUIRE(lcf);
  CHECK(edgesOutOf(lcf.value().tree, lab.sites, 0) == 1);
  CHECK(lcf.value().pipelined.seconds <= 128 * kMiB / mbps(50) * 1.05);
  auto chain = planBroadcast(request, BroadcastAlgorithm::kChain, TransferMode::kPipelined);
  REQUIRE(chain);
  for (int v = 1; v < 9; ++v) CHECK(chain.value().tree.parent[v] == v - 1);
}

TEST_CASE("random labs of rooms: a valid tree, never more crossings, never past the slack") {
  std::mt19937 rng(36);
  std::uniform_int_distribution<int> nodes(3, 14), rooms(2, 4), pick(0, 3);
  const double ups[] = {0, 50, 100, 400}, trunkRates[] = {0, 30, 100, 300};
  for (int trial = 0; trial < 60; ++trial) {
    CAPTURE(trial);
    Lab lab;
    const int n = nodes(rng), r = rooms(rng);
    for (int v = 0; v < n; ++v) {
      NodeRates rate;
      rate.uplinkBytesPerSecond = mbps(v == 0 ? 400 : ups[pick(rng)]);
      rate.downlinkBytesPerSecond = mbps(400);
      lab.rates.push_back(rate);
      lab.sites.siteOf.push_back(static_cast<int>(rng() % r));
    }
    for (int k = 0; k < r; ++k) lab.sites.trunks.push_back({mbps(trunkRates[pick(rng)]), mbps(trunkRates[pick(rng)])});
    // Any tree: each node under a random earlier node that can send.
    std::vector<int> parent(n, -1);
    for (int v = 1; v < n; ++v) {
      std::vector<int> senders;
      for (int q = 0; q < v; ++q)
        if (lab.rates[q].uplinkBytesPerSecond > 0.0) senders.push_back(q);
      parent[v] = senders[rng() % senders.size()];
    }
    auto tree = treeFromParents(0, parent);
    REQUIRE(tree);
    const double bytes = 16 * kMiB;
    const BroadcastTree out = fewerTrunkCrossings(tree.value(), lab.rates, bytes, kMiB, lab.sites);
    CHECK(checkTree(out, 0, {}).ok());
    CHECK(trunkCrossings(out, lab.sites) <= trunkCrossings(tree.value(), lab.sites));
    CHECK(predicted(out, lab, bytes) <= predicted(tree.value(), lab, bytes) * 1.01 * (1 + 1e-12));
    for (int v = 1; v < n; ++v)
      if (out.parent[v] != tree.value().parent[v]) CHECK(lab.rates[out.parent[v]].uplinkBytesPerSecond > 0.0);
  }
}
