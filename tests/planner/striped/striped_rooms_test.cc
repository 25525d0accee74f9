// Striped plans across rooms behind trunks (planner/striped/striped_rooms.h):
// every stripe enters a room once, the stripes through a trunk stay within
// it, the replay agrees with the prediction, and the prediction sits near
// the bound over cuts; one room plans exactly as one switch does.
#include <doctest/doctest.h>

#include <array>
#include <random>
#include <set>

#include "planner/pipelined/pipelined_tree.h"
#include "planner/striped/striped_check.h"
#include "planner/striped/striped_plan.h"
#include "planner/striped/striped_rooms.h"

using hnow::Result;
using namespace hnow::planner;

namespace {

constexpr double kMiB = 1 << 20;
double mbps(double m) { return m * 1e6 / 8; }

struct RoomLab {
  std::vector<NodeRates> rates;
  SiteLinks sites;
};

// Node 0 the source in room `sourceRoom`; agents[k] = {room, up, down};
// trunks per room in Mbit/s (0: not limited).
RoomLab roomLab(double sourceUp, int sourceRoom, const std::vector<std::array<double, 3>>& agents,
                const std::vector<std::pair<double, double>>& trunks) {
  RoomLab lab;
  lab.rates.resize(agents.size() + 1);
  lab.rates[0].uplinkBytesPerSecond = mbps(sourceUp);
  lab.rates[0].downlinkBytesPerSecond = mbps(1000);
  lab.sites.siteOf.push_back(sourceRoom);
  for (std::size_t k = 0; k < agents.size(); ++k) {
    lab.sites.siteOf.push_back(static_cast<int>(agents[k][0]));
    lab.rates[k + 1].uplinkBytesPerSecond = mbps(agents[k][1]);
    lab.rates[k + 1].downlinkBytesPerSecond = mbps(agents[k][2]);
  }
  for (auto [in, out] : trunks) lab.sites.trunks.push_back({mbps(in), mbps(out)});
  return lab;
}

// The edges of `tree` from outside `site` into it.
int entries(const BroadcastTree& tree, const SiteLinks& sites, int site) {
  int count = 0;
  for (int v = 0; v < tree.nodeCount(); ++v)
    if (tree.parent[v] >= 0 && sites.siteOf[v] == site && sites.siteOf[tree.parent[v]] != site) ++count;
  return count;
}

// The plan, replayed with the trunks: valid, within 5% of the prediction,
// never under the bound; every stripe enters every room but the source's once.
StripedPlan checkedRoomPlan(const RoomLab& lab, double bytes) {
  auto plan = planStriped(lab.rates, 0, {}, bytes, kMiB, {}, lab.sites);
  REQUIRE_MESSAGE(plan, (plan ? "" : plan.error().message));
  const Result<StripedReplay> replay =
      replayStriped(plan.value(), lab.rates, {}, bytes, plan.value().chunkBytes, lab.sites);
  REQUIRE_MESSAGE(replay.ok(), replay.error().message);
  CHECK(replay->makespan == doctest::Approx(plan.value().predictedSeconds).epsilon(0.05));
  CHECK(plan.value().predictedSeconds >= plan.value().boundSeconds * (1 - 1e-9));
  std::set<int> rooms(lab.sites.siteOf.begin() + 1, lab.sites.siteOf.end());
  rooms.erase(lab.sites.siteOf[0]);
  for (const BroadcastTree& tree : plan.value().trees)
    for (int room : rooms) CHECK(entries(tree, lab.sites, room) == 1);
  return plan.value();
}

// Two rooms on a router, 100 Mbit/s each way between them: hnowd (400 up)
// and 4 agents in room 0, 4 agents in room 1, every agent 400/400.
RoomLab twoRooms(double trunk) {
  std::vector<std::array<double, 3>> agents;
  for (int k = 0; k < 8; ++k) agents.push_back({k < 4 ? 0.0 : 1.0, 400, 400});
  return roomLab(400, 0, agents, {{0, 0}, {trunk, trunk}});
}

// A -100- B -50- C: the core at B (unlimited), A's trunk 100, C's 50;
// 3 + 3 + 2 agents of mixed uplinks, hnowd (400 up) in `sourceRoom`.
RoomLab threeRooms(int sourceRoom) {
  std::vector<std::array<double, 3>> agents = {{0, 400, 400}, {0, 200, 400}, {0, 100, 400},
                                               {1, 400, 400}, {1, 200, 400}, {1, 100, 400},
                                               {2, 400, 400}, {2, 200, 400}};
  return roomLab(400, sourceRoom, agents, {{100, 100}, {0, 0}, {50, 50}});
}

}  // namespace

TEST_CASE("two rooms behind a 100 Mbit/s trunk: each stripe crosses it once, within 1.05x of F over the trunk") {
  const RoomLab lab = twoRooms(100);
  const double bytes = 128 * kMiB;
  const StripedPlan plan = checkedRoomPlan(lab, bytes);
  const double trunkBound = bytes / mbps(100);
  CHECK(plan.boundSeconds == doctest::Approx(trunkBound));
  CHECK(plan.rateBytesPerSecond <= mbps(100) * (1 + 1e-9));
  CHECK(plan.predictedSeconds <= trunkBound * 1.05);
  // Without the trunk the bound is the star's: F / 400 Mbit/s.
  CHECK(kumarRossBound(lab.rates, 0, {}, bytes) == doctest::Approx(bytes / mbps(400)));
}

TEST_CASE("rooms known without a measured trunk: stripes still enter each room once, at the star's bound") {
  const RoomLab lab = twoRooms(0);
  const StripedPlan plan = checkedRoomPlan(lab, 128 * kMiB);
  CHECK(plan.boundSeconds == doctest::Approx(128 * kMiB / mbps(400)));
  CHECK(plan.predictedSeconds <= plan.boundSeconds * 1.15);
}

TEST_CASE("a chain through a trunk three times is predicted at a third of the trunk per crossing") {
  const RoomLab lab = twoRooms(100);
  // source(0) > 5(B) > 1(A) > 6(B) > 2(A) > 7(B): five crossings, three inwards.
  auto tree = treeFromParents(0, {-1, 5, 6, -1, -1, 0, 1, 2, -1});
  REQUIRE(tree);
  const std::vector<double> rates = edgeRates(tree.value(), lab.rates, lab.sites);
  CHECK(rates[5] == doctest::Approx(mbps(100) / 3));
  CHECK(rates[1] == doctest::Approx(mbps(100) / 2));
  auto predicted = predictPipelined(tree.value(), lab.rates, 128 * kMiB, kMiB, lab.sites);
  REQUIRE(predicted);
  CHECK(predicted.value().seconds >= 128 * kMiB / (mbps(100) / 3));
}

TEST_CASE("three rooms in a line, hnowd in an end room: the fast trunk's room passes the stripes on") {
  const RoomLab lab = threeRooms(0);
  const double bytes = 128 * kMiB;
  const StripedPlan plan = checkedRoomPlan(lab, bytes);
  CHECK(plan.boundSeconds == doctest::Approx(bytes / mbps(50)));
  CHECK(plan.predictedSeconds <= plan.boundSeconds * 1.05);
}

TEST_CASE("three rooms in a line, hnowd in an end room: each stripe leaves hnowd's room once, the middle room relays") {
  const RoomLab lab = threeRooms(0);
  const StripedPlan plan = checkedRoomPlan(lab, 128 * kMiB);
  for (const BroadcastTree& tree : plan.trees) {
    int out = 0;
    for (int v = 1; v < tree.nodeCount(); ++v)
      if (tree.parent[v] >= 0 && lab.sites.siteOf[tree.parent[v]] == 0 && lab.sites.siteOf[v] != 0) ++out;
    CHECK(out == 1);
  }
}

TEST_CASE("room trees are weighed fewest copies through limited trunks first, the star first among equals") {
  const RoomLab lab = threeRooms(0);
  std::vector<int> dests;
  for (int v = 1; v < static_cast<int>(lab.rates.size()); ++v) dests.push_back(v);
  const std::vector<StripeRoom> rooms = stripeRooms(0, dests, lab.sites);
  const auto candidates = roomTreeCandidates(rooms, lab.rates, 0);
  REQUIRE(candidates.size() >= 2);
  // Star: A's trunk out twice, C's in once; through the hub B: A's out once, C's in once.
  const std::vector<int> star = {-1, 0, 0}, hub = {-1, 0, 1};
  CHECK(roomTreeCrossings(rooms, star) == 3);
  CHECK(roomTreeCrossings(rooms, hub) == 2);
  CHECK(candidates.front() == hub);
  for (std::size_t i = 1; i < candidates.size(); ++i)
    CHECK(roomTreeCrossings(rooms, candidates[i - 1]) <= roomTreeCrossings(rooms, candidates[i]));
  // hnowd in the middle: its trunk is unlimited, no hub to go through; the star leads.
  const RoomLab mid = threeRooms(1);
  const std::vector<StripeRoom> midRooms = stripeRooms(0, dests, mid.sites);
  CHECK(roomTreeCandidates(midRooms, mid.rates, 0).front() == std::vector<int>{-1, 0, 0});
}

TEST_CASE("three rooms in a line, hnowd in the middle room: each end room fed once through its own trunk") {
  const RoomLab lab = threeRooms(1);
  const double bytes = 128 * kMiB;
  const StripedPlan plan = checkedRoomPlan(lab, bytes);
  CHECK(plan.boundSeconds == doctest::Approx(bytes / mbps(50)));
  CHECK(plan.predictedSeconds <= plan.boundSeconds * 1.05);
}

TEST_CASE("a slow trunk out of the source's room makes one room feed the others") {
  // hnowd's room sends out at 100 only; rooms 1 and 2 take 400 in and the
  // core between them is fast: 1 feeds 2, or the trunk out carries 2R.
  std::vector<std::array<double, 3>> agents = {{0, 400, 400}, {1, 400, 400}, {1, 400, 400},
                                               {2, 400, 400}, {2, 400, 400}};
  const RoomLab lab = roomLab(400, 0, agents, {{100, 100}, {400, 400}, {400, 400}});
  const double bytes = 64 * kMiB;
  const StripedPlan plan = checkedRoomPlan(lab, bytes);
  CHECK(plan.rateBytesPerSecond > mbps(50) * 1.5);
  CHECK(plan.predictedSeconds <= plan.boundSeconds * 1.10);
}

TEST_CASE("one room, with or without a label, plans exactly as one switch") {
  const RoomLab lab = roomLab(400, 0, {{0, 400, 400}, {0, 100, 400}, {0, 50, 200}, {0, 400, 400}, {0, 100, 400}},
                              {{0, 0}});
  auto plain = planStriped(lab.rates, 0, {}, 128 * kMiB, kMiB);
  auto labelled = planStriped(lab.rates, 0, {}, 128 * kMiB, kMiB, {}, lab.sites);
  REQUIRE(plain);
  REQUIRE(labelled);
  REQUIRE(plain.value().stripes() == labelled.value().stripes());
  for (int k = 0; k < plain.value().stripes(); ++k)
    CHECK(plain.value().trees[k].parent == labelled.value().trees[k].parent);
  CHECK(plain.value().predictedSeconds == labelled.value().predictedSeconds);
  CHECK(plain.value().boundSeconds == labelled.value().boundSeconds);
}

TEST_CASE("the cut bound: F through each trunk, F out of the source's room, a room's uploads and trunk together") {
  const double f = 100 * kMiB;
  // Room 1: two agents uploading 10 each behind a trunk of 100 in: 2F / 120.
  RoomLab lab = roomLab(1000, 0, {{1, 10, 1000}, {1, 10, 1000}}, {{0, 0}, {100, 0}});
  CHECK(roomCutBound(lab.rates, 0, {}, f, lab.sites) == doctest::Approx(std::max(f / mbps(100), 2 * f / mbps(120))));
  // Out of the source's room at 40.
  lab.sites.trunks[0].outBytesPerSecond = mbps(40);
  CHECK(roomCutBound(lab.rates, 0, {}, f, lab.sites) == doctest::Approx(f / mbps(40)));
  // No destination beyond the source's room: the trunk out is not crossed.
  CHECK(roomCutBound(lab.rates, 0, std::vector<int>{0}, f, lab.sites) == 0.0);
  // No limits: no bound.
  lab.sites.trunks = {};
  CHECK(roomCutBound(lab.rates, 0, {}, f, lab.sites) == 0.0);
}

TEST_CASE("random labs of rooms: every plan valid by replay, each stripe enters each room once, never under the bound") {
  std::mt19937 rng(36);
  std::uniform_int_distribution<int> roomCount(2, 4), agentCount(3, 12), pick(0, 3);
  const double ups[] = {20, 50, 100, 400}, downs[] = {100, 200, 400, 400}, trunkRates[] = {0, 30, 100, 300};
  for (int trial = 0; trial < 40; ++trial) {
    const int rooms = roomCount(rng);
    std::vector<std::array<double, 3>> agents;
    const int n = agentCount(rng);
    for (int k = 0; k < n; ++k)
      agents.push_back({static_cast<double>(k % rooms), ups[pick(rng)], downs[pick(rng)]});
    std::vector<std::pair<double, double>> trunks;
    for (int r = 0; r < rooms; ++r) trunks.push_back({trunkRates[pick(rng)], trunkRates[pick(rng)]});
    const RoomLab lab = roomLab(ups[pick(rng)], pick(rng) % rooms, agents, trunks);
    CAPTURE(trial);
    const StripedPlan plan = checkedRoomPlan(lab, 32 * kMiB);
    CHECK(plan.predictedSeconds >= roomCutBound(lab.rates, 0, {}, 32 * kMiB, lab.sites) * (1 - 1e-9));
  }
}
