#include <doctest/doctest.h>

#include <limits>
#include <random>
#include <tuple>
#include <vector>

#include "multicast_instances.h"
#include "planner/multicast/multicast_bound.h"
#include "planner/multicast/multicast_check.h"
#include "planner/multicast/multicast_heuristics.h"
#include "planner/multicast/multicast_timeline.h"

using hnow::Result;
using namespace hnow::planner;
using hnow::testing::randomInstance;
using hnow::testing::seedExample;

namespace {

using Triple = std::tuple<int, int, int>;  // the seed's (sender, receiver, source) = (i, j, k)

const MulticastAlgorithm kAll[] = {
    MulticastAlgorithm::kFastestEdgeFirst,       MulticastAlgorithm::kEarliestCompletionFirst,
    MulticastAlgorithm::kWorkRacing,             MulticastAlgorithm::kEarliestAvailableFirst,
    MulticastAlgorithm::kRoundRobin,             MulticastAlgorithm::kReceiverRandomSelection};

MulticastPlan validPlan(const MulticastInstance& in, const hnow::Result<MulticastPlan>& plan) {
  REQUIRE_MESSAGE(plan.ok(), (plan.ok() ? "" : plan.error().message));
  Result<double> makespan = checkMulticastPlan(in, *plan);
  REQUIRE_MESSAGE(makespan.ok(), makespan.error().message);
  return *plan;
}

MulticastPlan validPlan(const MulticastInstance& in, MulticastAlgorithm algo, bool preemptive,
                        std::uint64_t seed = 1) {
  return validPlan(in, planMulticast(in, algo, {preemptive, seed}));
}

std::vector<Triple> sequenceOf(const MulticastPlan& plan) {
  std::vector<Triple> out;
  for (const auto& x : plan.transfers) out.emplace_back(x.from, x.to, x.message);
  return out;
}

std::vector<MulticastChoice> choicesOf(const std::vector<Triple>& sequence) {
  std::vector<MulticastChoice> out;
  for (auto [i, j, k] : sequence) out.push_back({i, j, k});
  return out;
}

// A plan's transfers as a sorted set of (from, to, message, recvEnd).
std::vector<std::tuple<int, int, int, double>> timedSet(const MulticastPlan& plan) {
  std::vector<std::tuple<int, int, int, double>> out;
  for (const auto& x : plan.transfers) out.emplace_back(x.from, x.to, x.message, x.recvEnd);
  std::sort(out.begin(), out.end());
  return out;
}

// Exhaustive ECF: every (holder, waiting destination, message) scanned at
// every step, ties as documented; a reference for the lazy heap.
std::vector<Triple> exhaustiveEcf(const MulticastInstance& in, bool preemptive) {
  MulticastTimeline timeline(in, preemptive);
  std::vector<Triple> out;
  for (;;) {
    std::tuple<double, int, int, int, int> best{1e300, 0, 0, 0, 0};
    bool found = false;
    for (int k = 0; k < in.messageCount(); ++k)
      for (int i = 0; i < in.nodeCount(); ++i)
        for (int j = 0; j < in.nodeCount(); ++j) {
          if (!timeline.holds(i, k) || !timeline.pending(k, j)) continue;
          std::tuple<double, int, int, int, int> key{timeline.completeTime(i, j, k),
                                                     i != in.messages[k].source, k, i, j};
          if (!found || key < best) best = key, found = true;
        }
    if (!found) return out;
    auto [time, notOwn, k, i, j] = best;
    timeline.commit(i, j, k);
    out.emplace_back(i, j, k);
  }
}

}  // namespace

TEST_CASE("seed 004 Figure 4: FEF, ECF, WR, EAF and RR reproduce the seed's task sequences") {
  const MulticastInstance in = seedExample();
  CHECK(sequenceOf(validPlan(in, MulticastAlgorithm::kFastestEdgeFirst, false)) ==
        std::vector<Triple>{{0, 1, 0}, {2, 0, 2}, {0, 1, 2}, {0, 2, 0}, {1, 2, 1}, {0, 3, 2}, {1, 3, 1}});
  MulticastPlan ecf = validPlan(in, MulticastAlgorithm::kEarliestCompletionFirst, false);
  CHECK(sequenceOf(ecf) ==
        std::vector<Triple>{{0, 1, 0}, {2, 0, 2}, {2, 1, 2}, {0, 2, 0}, {0, 3, 2}, {1, 2, 1}, {1, 3, 1}});
  std::vector<double> ecfTimes;
  for (const auto& x : ecf.transfers) ecfTimes.push_back(x.recvEnd);
  CHECK(ecfTimes == std::vector<double>{4, 5, 7, 12, 13, 18, 19});  // §6's completion times
  const std::vector<Triple> wrAndRr{{2, 0, 2}, {2, 1, 2}, {0, 2, 0}, {0, 3, 2}, {0, 1, 0}, {1, 2, 1}, {1, 3, 1}};
  CHECK(sequenceOf(validPlan(in, MulticastAlgorithm::kWorkRacing, false)) == wrAndRr);
  CHECK(sequenceOf(validPlan(in, MulticastAlgorithm::kEarliestAvailableFirst, false)) ==
        std::vector<Triple>{{2, 0, 2}, {2, 1, 2}, {2, 3, 2}, {0, 2, 0}, {0, 1, 0}, {1, 2, 1}, {1, 3, 1}});
  CHECK(sequenceOf(validPlan(in, MulticastAlgorithm::kRoundRobin, false)) == wrAndRr);
}

TEST_CASE("RRS with the seed's receiver draws reproduces Figures 4(f) and 5(e)") {
  const MulticastInstance in = seedExample();
  const std::vector<int> draws{1, 1, 0, 3, 2, 3, 2};  // the receivers of the seed's RRS run
  CHECK(sequenceOf(validPlan(in, scheduleReceiverOrder(in, draws, false))) ==
        std::vector<Triple>{{0, 1, 0}, {2, 1, 2}, {2, 0, 2}, {2, 3, 2}, {0, 2, 0}, {1, 3, 1}, {1, 2, 1}});
  CHECK(sequenceOf(validPlan(in, scheduleReceiverOrder(in, draws, true))) ==
        std::vector<Triple>{{0, 1, 0}, {2, 1, 2}, {2, 0, 2}, {1, 3, 1}, {0, 2, 0}, {0, 3, 2}, {1, 2, 1}});
}

TEST_CASE("seed 004 Figure 5: WRP, EAFP and RRP reproduce the seed's preemptive sequences") {
  const MulticastInstance in = seedExample();
  const std::vector<Triple> wrpAndRrp{{2, 0, 2}, {0, 1, 0}, {0, 2, 0}, {1, 3, 1}, {0, 1, 2}, {1, 2, 1}, {0, 3, 2}};
  CHECK(sequenceOf(validPlan(in, MulticastAlgorithm::kWorkRacing, true)) == wrpAndRrp);
  CHECK(sequenceOf(validPlan(in, MulticastAlgorithm::kRoundRobin, true)) == wrpAndRrp);
  CHECK(sequenceOf(validPlan(in, MulticastAlgorithm::kEarliestAvailableFirst, true)) ==
        std::vector<Triple>{{2, 0, 2}, {0, 1, 0}, {1, 3, 1}, {0, 2, 0}, {0, 1, 2}, {0, 3, 2}, {1, 2, 1}});
}

TEST_CASE("ECFP differs from Figure 5(a) only in the order of two steps tied at 7: same transfers, same times") {
  const MulticastInstance in = seedExample();
  const std::vector<Triple> seed{{0, 1, 0}, {2, 0, 2}, {2, 1, 2}, {1, 3, 1}, {0, 2, 0}, {0, 3, 2}, {1, 2, 1}};
  MulticastPlan replayed = validPlan(in, scheduleChoices(in, choicesOf(seed), true));
  MulticastPlan ecfp = validPlan(in, MulticastAlgorithm::kEarliestCompletionFirst, true);
  // The tie rule (docs/multicast.md) takes message 1 before message 2 at completion 7.
  CHECK(sequenceOf(ecfp)[2] == Triple{1, 3, 1});
  CHECK(sequenceOf(ecfp)[3] == Triple{2, 1, 2});
  CHECK(timedSet(ecfp) == timedSet(replayed));
  // §6: ECFP uses P1's wait for m_0 to send m_1 to P3 first.
  CHECK(ecfp.taskLists[1][0].send);
  CHECK(ecfp.makespan < validPlan(in, MulticastAlgorithm::kEarliestCompletionFirst, false).makespan);
}

TEST_CASE("the lower bound of the seed's example is 13, from P2 and P3 (Equation 4)") {
  // L: m0 reaches P1 at 1+3 = 4, P2 at 1+6 = 7; m1 reaches P2 and P3 at 7;
  // m2 reaches P0 and P1 at 2+3 = 5, P3 at 2+6 = 8. P2: 7, then 7+6 = 13.
  const MulticastInstance in = seedExample();
  std::vector<double> reach = earliestReachTimes(in);
  CHECK(reach[0 * 4 + 2] == 7);
  CHECK(reach[2 * 4 + 3] == 8);
  CHECK(multicastLowerBound(in) == 13);
}

TEST_CASE("the lower bound orders receives by latest start, so it stays below a schedule reach order would exceed") {
  // d receives a long message (R = 1 + 8 = 9, reaching at 10) and a short one
  // (R = 1, reaching at 4 + 1 = 5). Reach order gives 5 + 9 = 14; receiving
  // the long one first ends at 11, and that schedule exists.
  MulticastInstance in;
  in.nodes = {{1, 0, 1, 0}, {4, 0, 1, 0}, {1, 0, 1, 1}};
  in.messages = {{0, 8, {2}}, {1, 0, {2}}};
  in.linkPerByte = uniformLinks(3, 0.0);
  CHECK(multicastLowerBound(in) == 11);
  MulticastPlan longFirst = validPlan(in, scheduleChoices(in, choicesOf({{0, 2, 0}, {1, 2, 1}}), false));
  CHECK(longFirst.makespan == 11);
}

TEST_CASE("every algorithm's plan is valid and never below the lower bound on random instances") {
  std::mt19937 rng(404);
  for (int trial = 0; trial < 120; ++trial) {
    const int n = 2 + trial % 9;
    MulticastInstance in = randomInstance(rng, n, 1 + trial % 5, trial % 2 == 1);
    const double bound = multicastLowerBound(in);
    for (MulticastAlgorithm algo : kAll) {
      for (bool preemptive : {false, true}) {
        if (preemptive && algo == MulticastAlgorithm::kFastestEdgeFirst) continue;
        MulticastPlan plan = validPlan(in, algo, preemptive, 1 + trial);
        CHECK(plan.makespan >= bound * (1 - 1e-12));
      }
    }
  }
}

TEST_CASE("the lazy ECF and ECFP choose exactly what an exhaustive scan chooses") {
  std::mt19937 rng(42);
  for (int trial = 0; trial < 60; ++trial) {
    MulticastInstance in = randomInstance(rng, 2 + trial % 7, 1 + trial % 4, trial % 3 == 0);
    for (bool preemptive : {false, true})
      CHECK(sequenceOf(validPlan(in, MulticastAlgorithm::kEarliestCompletionFirst, preemptive)) ==
            exhaustiveEcf(in, preemptive));
  }
  // Equal overheads make ties everywhere: the tie rule must agree too.
  MulticastInstance flat = seedExample();
  for (auto& node : flat.nodes) node = {1, 0, 1, 0};
  for (bool preemptive : {false, true})
    CHECK(sequenceOf(validPlan(flat, MulticastAlgorithm::kEarliestCompletionFirst, preemptive)) ==
          exhaustiveEcf(flat, preemptive));
}

TEST_CASE("preemption never delays a task of a fixed sequence of choices (seed 004 §5, Equation 10)") {
  std::mt19937 rng(5);
  for (int trial = 0; trial < 80; ++trial) {
    MulticastInstance in = randomInstance(rng, 2 + trial % 8, 1 + trial % 5, trial % 2 == 0);
    for (MulticastAlgorithm algo : kAll) {
      MulticastPlan plain = validPlan(in, algo, false, trial);
      std::vector<MulticastChoice> choices = choicesOf(sequenceOf(plain));
      MulticastPlan preempted = validPlan(in, scheduleChoices(in, choices, true));
      REQUIRE(preempted.transfers.size() == plain.transfers.size());
      for (size_t t = 0; t < plain.transfers.size(); ++t)
        CHECK(preempted.transfers[t].recvEnd <= plain.transfers[t].recvEnd);
      CHECK(preempted.makespan <= plain.makespan);
    }
  }
}

TEST_CASE("WR serves the receiver of least virtual time, the faster one on ties (§4.3)") {
  // Two destinations of one message with equal virtual time 0: the one with
  // the smaller receive overhead (node 2) is served first, although it has
  // the higher index.
  MulticastInstance in;
  in.nodes = {{1, 0, 1, 0}, {1, 0, 5, 0}, {1, 0, 2, 0}};
  in.messages = {{0, 0, {1, 2}}};
  in.linkPerByte = uniformLinks(3, 0.0);
  MulticastPlan wr = validPlan(in, MulticastAlgorithm::kWorkRacing, false);
  CHECK(sequenceOf(wr).front() == Triple{0, 2, 0});
  MulticastPlan eaf = validPlan(in, MulticastAlgorithm::kEarliestAvailableFirst, false);
  CHECK(sequenceOf(eaf).front() == Triple{0, 2, 0});
  MulticastPlan rr = validPlan(in, MulticastAlgorithm::kRoundRobin, false);
  CHECK(sequenceOf(rr).front() == Triple{0, 1, 0});  // RR: index order regardless of speed
}

TEST_CASE("RRS is reproducible from its seed, and the seed matters") {
  std::mt19937 rng(7);
  MulticastInstance in = randomInstance(rng, 12, 6, false);
  auto a = sequenceOf(validPlan(in, MulticastAlgorithm::kReceiverRandomSelection, false, 99));
  CHECK(a == sequenceOf(validPlan(in, MulticastAlgorithm::kReceiverRandomSelection, false, 99)));
  bool differs = false;
  for (std::uint64_t seed = 1; seed <= 5 && !differs; ++seed)
    differs = sequenceOf(validPlan(in, MulticastAlgorithm::kReceiverRandomSelection, false, seed)) != a;
  CHECK(differs);
}

TEST_CASE("the planner rejects preemptive FEF, bad instances and impossible choices with a reason") {
  MulticastInstance in = seedExample();
  CHECK_FALSE(planMulticast(in, MulticastAlgorithm::kFastestEdgeFirst, {true, 1}).ok());
  MulticastInstance bad = in;
  bad.messages[0].destinations.push_back(0);
  auto plan = planMulticast(bad, MulticastAlgorithm::kEarliestCompletionFirst);
  REQUIRE_FALSE(plan.ok());
  CHECK(plan.error().message == "message 0: the source cannot be one of its destinations");
  bad = in;
  bad.nodes[3].recvOverhead = 0;
  CHECK_FALSE(planMulticast(bad, MulticastAlgorithm::kWorkRacing).ok());
  for (double link : {-1e-9, std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::infinity()}) {
    bad = in;
    bad.linkPerByte[1 * 4 + 2] = link;
    auto linked = planMulticast(bad, MulticastAlgorithm::kFastestEdgeFirst);
    REQUIRE_FALSE(linked.ok());
    CHECK(linked.error().message == "link times per byte must be 0 or more");
  }
  // P1 cannot relay m0 before it is scheduled to receive it.
  CHECK_FALSE(scheduleChoices(in, choicesOf({{1, 2, 0}}), false).ok());
  CHECK_FALSE(scheduleChoices(in, choicesOf({{0, 1, 0}, {0, 1, 0}}), false).ok());
  CHECK_FALSE(scheduleReceiverOrder(in, std::vector<int>{0, 0}, false).ok());
  CHECK_FALSE(scheduleReceiverOrder(in, std::vector<int>{0}, false).ok());
}
