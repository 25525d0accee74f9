#include <doctest/doctest.h>

#include "planner/clusters/two_level_check.h"
#include "support/why.h"

using hnow::testing::why;
using namespace hnow::planner;

namespace {

// Clusters {2, 2}: nodes 0,1 in K0 (0 is the source), 2,3 in K1; L = 1, C = 3.
TwoLevelInstance twoPairs(TwoLevelModel model = TwoLevelModel::kBlocking) {
  return broadcastInstance({2, 2}, 1.0, 3.0, model);
}

std::string reasonOf(const TwoLevelInstance& in, const Schedule& s, GlobalLimits limits = {}) {
  return why(checkTwoLevel(in, limits, s));
}

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

}  // namespace

TEST_CASE("a valid blocking two-level broadcast replays to its makespan") {
  Schedule s{{0, 2, 0, 3}, {0, 1, 3, 4}, {2, 3, 3, 4}};
  auto check = checkTwoLevel(twoPairs(), {}, s);
  REQUIRE(check.ok());
  CHECK(*check == doctest::Approx(4));
}

TEST_CASE("two-level replay rejects a local or global transfer of the wrong length") {
  CHECK(has(reasonOf(twoPairs(), {{0, 2, 0, 1}, {0, 1, 1, 2}, {2, 3, 1, 2}}), "global transfer takes"));
  CHECK(has(reasonOf(twoPairs(), {{0, 1, 0, 3}, {0, 2, 3, 6}, {2, 3, 6, 7}}), "local transfer takes"));
}

TEST_CASE("blocking model: the sender stays busy for the whole global transfer") {
  // The source sends locally while its global transfer is still in flight.
  Schedule s{{0, 2, 0, 3}, {0, 1, 1, 2}, {2, 3, 3, 4}};
  CHECK(has(reasonOf(twoPairs(), s), "still busy"));
}

TEST_CASE("postal model: the sender is free again one local time after injecting a global message") {
  Schedule s{{0, 2, 0, 3}, {0, 1, 1, 2}, {2, 3, 3, 4}};
  auto check = checkTwoLevel(twoPairs(TwoLevelModel::kPostal), {}, s);
  REQUIRE(check.ok());
  CHECK(*check == doctest::Approx(4));
  // ...but not before: two sends within one local time.
  Schedule early{{0, 2, 0, 3}, {0, 1, 0.5, 1.5}, {2, 3, 3, 4}};
  CHECK(has(reasonOf(twoPairs(TwoLevelModel::kPostal), early), "still busy"));
}

TEST_CASE("two-level replay rejects a sender without the message, a second receive, a missed node") {
  CHECK(has(reasonOf(twoPairs(), {{2, 3, 0, 1}, {0, 2, 1, 4}, {0, 1, 4, 5}}), "has not received"));
  CHECK(has(reasonOf(twoPairs(), {{0, 1, 0, 1}, {0, 2, 1, 4}, {1, 2, 1, 4}}), "still busy"));
  CHECK(has(reasonOf(twoPairs(), {{0, 1, 0, 1}, {0, 2, 1, 4}, {1, 2, 4, 7}, {2, 3, 7, 8}}),
            "already got"));
  CHECK(has(reasonOf(twoPairs(), {{0, 1, 0, 1}, {1, 0, 1, 2}, {0, 2, 2, 5}, {2, 3, 5, 6}}),
            "source never"));
  CHECK(has(reasonOf(twoPairs(), {{0, 2, 0, 3}, {0, 1, 3, 4}}), "never receives"));
}

TEST_CASE("two-level replay checks only the multicast group") {
  TwoLevelInstance in = twoPairs();
  in.needed = {1, 1};  // the source and node 2
  CHECK(checkTwoLevel(in, {}, Schedule{{0, 2, 0, 3}}).ok());
  in.needed = {1, 2};
  CHECK(has(reasonOf(in, {{0, 2, 0, 3}}), "node 3 never receives"));
}

TEST_CASE("bounded degree: no more than d_i nodes of a cluster in global transfers at once") {
  // K0 = {0,1,2,3}, K1 = {4}, K2 = {5}: nodes 0 and 1 send to K1 and K2 together.
  TwoLevelInstance in = broadcastInstance({4, 1, 1}, 1.0, 2.0);
  Schedule s{{0, 1, 0, 1}, {0, 4, 1, 3}, {1, 5, 1, 3}, {0, 2, 3, 4}, {1, 3, 3, 4}};
  CHECK(checkTwoLevel(in, {}, s).ok());
  CHECK(checkTwoLevel(in, {.degree = {2, 1, 1}}, s).ok());
  CHECK(has(reasonOf(in, s, {.degree = {1, 0, 0}}), "nodes of cluster 0 in global transfers"));
  // The same transfers one after the other respect d_0 = 1.
  Schedule serial{{0, 1, 0, 1}, {0, 4, 1, 3}, {1, 5, 3, 5}, {0, 2, 3, 4}, {0, 3, 4, 5}};
  CHECK(checkTwoLevel(in, {.degree = {1, 0, 0}}, serial).ok());
}

TEST_CASE("bounded degree counts receivers too") {
  // K0 = {0,1}, K1 = {2,3}, K2 = {4}: K1's nodes 2 and 3 both take part at once.
  TwoLevelInstance in = broadcastInstance({2, 2, 1}, 1.0, 2.0);
  Schedule s{{0, 1, 0, 1}, {0, 2, 1, 3}, {1, 3, 1, 3}, {2, 4, 3, 5}};
  CHECK(checkTwoLevel(in, {}, s).ok());
  CHECK(has(reasonOf(in, s, {.degree = {0, 1, 0}}), "cluster 1"));
}

TEST_CASE("bounded-size matching: no more than B global transfers in progress at once") {
  TwoLevelInstance in = broadcastInstance({4, 1, 1}, 1.0, 2.0);
  Schedule s{{0, 1, 0, 1}, {0, 4, 1, 3}, {1, 5, 1, 3}, {0, 2, 3, 4}, {1, 3, 3, 4}};
  CHECK(checkTwoLevel(in, {.degree = {}, .maxGlobal = 2}, s).ok());
  CHECK(has(reasonOf(in, s, {.degree = {}, .maxGlobal = 1}), "max_global"));
}
